//go:build !linux

package testkafka

import (
	"os"
	"os/exec"
)

// Outside Linux there is no Pdeathsig and no flock-based sweeping: the
// broker is stopped by Main only.

func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

func killTree(cmd *exec.Cmd) { cmd.Process.Kill() }

func lockDir(string) (*os.File, error) { return nil, nil }

func sweepStale() {}
