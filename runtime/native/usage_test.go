package native

import (
	"os"
	"syscall"
	"testing"
)

// The test binary is its own process group's member; its usage is real.
func TestGroupUsage(t *testing.T) {
	pgid, err := syscall.Getpgid(os.Getpid())
	if err != nil {
		t.Skip(err)
	}
	u := GroupUsage(pgid)
	if u.Procs < 1 || u.RSS < 1<<20 {
		t.Fatalf("usage of this process group: %+v", u)
	}
	if u := GroupUsage(1 << 30); u.Procs != 0 {
		t.Fatalf("a group that does not exist: %+v", u)
	}
}
