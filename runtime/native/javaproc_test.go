package native

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A real JVM started as the supervisor starts one: its release from the
// JDK's release file, its heap from its last -Xmx flag.
func TestReadJavaProcess(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "Sleep.java")
	if err := os.WriteFile(src, []byte("class Sleep { public static void main(String[] a) throws Exception { Thread.sleep(60000); } }"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-Xmx64m", "-Xmx96m", "-XX:+UseSerialGC", src)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var jp JavaProcess
	for deadline := time.Now().Add(20 * time.Second); ; {
		if jp, err = ReadJavaProcess(cmd.Process.Pid); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(java, "-XshowSettings:properties", "-version").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	// java.runtime.version is JAVA_RUNTIME_VERSION of the release file.
	if !strings.Contains(string(out), "java.runtime.version = "+jp.Release+"\n") {
		t.Errorf("release %q is not java's own runtime version:\n%s", jp.Release, out)
	}
	if jp.Heap != "-Xmx96m" || jp.HeapBytes != 96<<20 || jp.HeapText() != "96 MiB (-Xmx96m)" {
		t.Errorf("heap %+v %q", jp, jp.HeapText())
	}
	// This test's own process is not a JVM.
	if _, err := ReadJavaProcess(os.Getpid()); err == nil || !strings.Contains(err.Error(), "not java") {
		t.Errorf("a Go process read as a JVM: %v", err)
	}
}

// A process caught inside execve: /proc/PID/exe already names java but
// the arguments are not laid out yet, so the command line reads empty.
// Reading it then must fail (and be tried again), not report "no -Xmx".
func TestReadJavaProcessInsideExec(t *testing.T) {
	root := t.TempDir()
	jdk := filepath.Join(root, "jdk")
	if err := os.MkdirAll(filepath.Join(jdk, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jdk, "bin", "java"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jdk, "release"), []byte("JAVA_VERSION=\"17.0.15\"\nJAVA_RUNTIME_VERSION=\"17.0.15+6\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proc := filepath.Join(root, "proc")
	pid := filepath.Join(proc, "42")
	if err := os.MkdirAll(pid, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(jdk, "bin", "java"), filepath.Join(pid, "exe")); err != nil {
		t.Fatal(err)
	}
	old := procRoot
	procRoot = proc
	defer func() { procRoot = old }()

	if err := os.WriteFile(filepath.Join(pid, "cmdline"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if jp, err := ReadJavaProcess(42); err == nil || !strings.Contains(err.Error(), "still starting") {
		t.Errorf("an empty command line read as %+v, %v", jp, err)
	}
	if err := os.WriteFile(filepath.Join(pid, "cmdline"), []byte("java\x00-Xmx1g\x00Main\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	jp, err := ReadJavaProcess(42)
	if err != nil || jp.Release != "17.0.15+6" || jp.HeapBytes != 1<<30 {
		t.Errorf("read %+v, %v", jp, err)
	}
}
