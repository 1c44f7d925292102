// Package testproc is what internal/testsrv (MariaDB, ClickHouse) and
// internal/testkafka (a Kafka broker) share to run throwaway servers for
// tests: the LABGEN_TEST_SERVERS switch and the set of servers a test
// binary shares and stops after its last test (Main/Run). The processes
// themselves are internal/proc's, which production (the native stack)
// uses too; this package imports testing, and production none of it.
package testproc
