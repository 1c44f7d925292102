//go:build linux

package kube

import (
	"os/exec"
	"syscall"
)

// setParentDeath has the kernel kill kubectl when labgen dies without
// closing its forwards (SIGKILL), so that none is left behind.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
