//go:build !linux

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// Outside Linux there is no Pdeathsig and no flock-based sweeping: servers
// are stopped by Servers.Run only. The Debian packages the servers come
// from exist on Linux anyway.

func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

func killTree(cmd *exec.Cmd) { cmd.Process.Kill() }

func termTree(cmd *exec.Cmd) { cmd.Process.Signal(os.Interrupt) }

func signalTree(cmd *exec.Cmd, sig syscall.Signal) error { return cmd.Process.Signal(sig) }

func lockDir(string) (*os.File, error) { return nil, nil }

func sweepStale(string) {}
