package native

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/labgen/labgen/runtime/record"
)

// JavaProcess is what a running JVM's /proc entries say of it: its Java
// release (from the release file of the JDK its executable belongs to)
// and its maximum heap (its last -Xmx flag).
type JavaProcess struct {
	// Release is JAVA_RUNTIME_VERSION, else JAVA_VERSION ("17.0.15").
	Release string
	// Heap is the -Xmx flag as given ("-Xmx536870902"); "" when the
	// command line sets none (the JVM's default, a quarter of memory).
	Heap string
	// HeapBytes is the heap the flag asks for (0 without one).
	HeapBytes int64
}

// procRoot is where /proc is (tests point it elsewhere).
var procRoot = "/proc"

// ReadJavaProcess reads the JVM of process pid. It fails when the
// process is gone, its executable is not a JDK's java, or it is still
// inside execve: the kernel points /proc/PID/exe at the new program
// before it lays out the arguments, so for a moment the command line
// reads empty and a -Xmx would be missed (seen in CI, once in many runs).
func ReadJavaProcess(pid int) (JavaProcess, error) {
	var jp JavaProcess
	dir := filepath.Join(procRoot, strconv.Itoa(pid))
	exe, err := os.Readlink(filepath.Join(dir, "exe"))
	if err != nil {
		return jp, err
	}
	if filepath.Base(exe) != "java" {
		return jp, fmt.Errorf("process %d runs %s, not java", pid, exe)
	}
	// …/bin/java → …/release, as every JDK since 9 ships it.
	rel, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(exe)), "release"))
	if err != nil {
		return jp, fmt.Errorf("the JDK of %s has no release file: %w", exe, err)
	}
	vals := releaseValues(rel)
	jp.Release = vals["JAVA_RUNTIME_VERSION"]
	if jp.Release == "" {
		jp.Release = vals["JAVA_VERSION"]
	}
	if jp.Release == "" {
		return jp, fmt.Errorf("the release file of %s names no Java version", exe)
	}
	cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil {
		return jp, err
	}
	if len(cmdline) == 0 {
		return jp, fmt.Errorf("process %d is still starting (its command line is empty)", pid)
	}
	for _, arg := range strings.Split(string(cmdline), "\x00") {
		if v, ok := strings.CutPrefix(arg, "-Xmx"); ok {
			if n, ok := record.JavaSize(v); ok {
				jp.Heap, jp.HeapBytes = arg, n
			}
		}
	}
	return jp, nil
}

// releaseValues reads a JDK's release file (KEY="value" lines).
func releaseValues(b []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return out
}

// HeapText is the heap as a record shows it (record.HeapText).
func (jp JavaProcess) HeapText() string { return record.HeapText(jp.Heap) }
