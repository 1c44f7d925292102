//go:build !linux

package testsrv

import (
	"os"
	"os/exec"
)

// Outside Linux there is no Pdeathsig and no flock-based sweeping: servers
// are stopped by Main only. The Debian packages this package expects exist
// on Linux anyway.

func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

func killTree(cmd *exec.Cmd) { cmd.Process.Kill() }

func lockDir(string) (*os.File, error) { return nil, nil }

func sweepStale() {}
