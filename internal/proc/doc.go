// Package proc runs and stops server processes: the native stack's
// services (runtime/native) and the throwaway servers of tests
// (internal/testsrv, internal/testkafka, through internal/testproc). It
// gives each a private directory, starts it in its own process group,
// waits until a probe says it is ready, and stops it with all its
// children.
//
// # Cleanup when the parent dies
//
// On Linux the processes are started with PR_SET_PDEATHSIG=SIGKILL, from
// one OS thread that lives as long as the process, so the kernel kills
// them when their parent dies, and in their own process group, so Ctrl-C
// reaches only the parent and Stop can signal a process with all its
// children. Each directory holds a flock owned by the parent; directories
// of the same prefix left behind by a dead process are removed the next
// time one is created (once their lock file is a minute old). Outside
// Linux there is no Pdeathsig and no sweeping.
package proc
