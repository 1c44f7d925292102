//go:build linux

package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// spawner starts every server from one goroutine locked to its OS thread
// for the life of the process. Pdeathsig fires when the thread that forked
// the child exits, not the process, and the Go runtime ends a thread whose
// locked goroutine returns; forking from a thread that never ends makes
// Pdeathsig mean "when the test binary dies".
var spawner struct {
	once sync.Once
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

func startCmd(cmd *exec.Cmd) error {
	// Own process group: Ctrl-C reaches only the test binary, which then
	// tears the servers down itself; killTree can signal the whole group.
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if cmd.SysProcAttr != nil {
		// A server that refuses to run as root (postgres) runs as
		// another user; Go sets the parent-death signal after the
		// change of user, so it still holds.
		attr.Credential = cmd.SysProcAttr.Credential
	}
	cmd.SysProcAttr = attr
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread()
			for r := range spawner.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}

func killTree(cmd *exec.Cmd) {
	// The negative pid addresses the process group created by Setpgid.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}

func termTree(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		cmd.Process.Signal(syscall.SIGTERM)
	}
}

func signalTree(cmd *exec.Cmd, sig syscall.Signal) error {
	return syscall.Kill(-cmd.Process.Pid, sig)
}

const lockName = ".owner.lock"

// lockDir marks dir as owned by this process with an exclusive flock, which
// the kernel drops when the process dies, however it dies. The file must stay
// open for as long as the directory is in use.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sweepStale removes the server directories of prefix whose owner died
// without cleaning up (crash, go test timeout). A directory is stale when
// its lock file can be locked; the age check keeps out of the way of a
// directory that another process has just created and not locked yet.
func sweepStale(prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
	for _, dir := range dirs {
		lockPath := filepath.Join(dir, lockName)
		st, err := os.Stat(lockPath)
		if err != nil || time.Since(st.ModTime()) < time.Minute {
			continue
		}
		f, err := os.Open(lockPath)
		if err != nil {
			continue
		}
		// Failing to lock means the owner is alive (or the directory is not
		// ours to judge); leave it alone.
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}
