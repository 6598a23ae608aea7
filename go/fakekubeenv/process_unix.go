//go:build unix && !linux

package fakekubeenv

import "syscall"

// Without PR_SET_PDEATHSIG, a killed test binary leaves the server running; Stop still ends it.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
