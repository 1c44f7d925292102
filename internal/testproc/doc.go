// Package testproc is what internal/testsrv (MariaDB, ClickHouse) and
// internal/testkafka (a Kafka broker) share to run throwaway servers for
// tests: the LABGEN_TEST_SERVERS switch, the set of servers a test binary
// shares and stops after its last test (Main/Run), server directories in
// $TMPDIR, server processes with readiness probes, and free ports.
//
// # Cleanup when the test binary dies
//
// A test binary that crashes, is interrupted, or hits the go test timeout
// never reaches Run's teardown. On Linux the servers are therefore started
// with PR_SET_PDEATHSIG=SIGKILL, from one OS thread that lives as long as
// the process, so the kernel kills them when the test binary dies, and in
// their own process group, so Ctrl-C reaches only the test binary and Stop
// can signal a server with all its children. Each server directory holds a
// flock owned by the test process; directories of the same prefix left
// behind by a dead process are removed the next time one is created (once
// their lock file is a minute old). Outside Linux there is no Pdeathsig and
// no sweeping: servers are stopped by Run only.
package testproc
