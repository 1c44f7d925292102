package native

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLaunchPassesNoInheritedDescriptor: a descriptor this process holds
// without close-on-exec (as `flock FILE labgen up` hands labgen its lock)
// does not reach the supervisor, which would hold it as long as the stack
// runs.
func TestLaunchPassesNoInheritedDescriptor(t *testing.T) {
	dir := t.TempDir()
	lay, err := NewLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Opened without O_CLOEXEC, as a shell opens a redirection.
	// A high number, which the child's own descriptors do not reach.
	opened, err := syscall.Open(filepath.Join(dir, "held"), syscall.O_CREAT|syscall.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(opened)
	const fd = 100
	if err := syscall.Dup3(opened, fd, 0); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	out := filepath.Join(dir, "fds")
	if _, err := Launch(lay, []string{"/bin/sh", "-c", "ls /proc/self/fd > " + out + ".tmp; mv " + out + ".tmp " + out}); err != nil {
		t.Fatal(err)
	}
	var b []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, err = os.ReadFile(out); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the launched process wrote nothing: %v", err)
	}
	for _, f := range strings.Fields(string(b)) {
		if f == strconv.Itoa(fd) {
			t.Fatalf("descriptor %d reached the launched process (its descriptors: %s)", fd, strings.Join(strings.Fields(string(b)), " "))
		}
	}
}
