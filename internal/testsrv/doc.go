// Package testsrv starts real, throwaway database servers for tests: MariaDB
// (mariadbd from the Debian package mariadb-server) and ClickHouse (Debian's
// clickhouse-server, an 18.16 build). Nothing is mocked: tests talk to the
// same wire protocols, users and grants the rendered labs use.
//
// # Usage
//
// Each test binary shares one server of each kind, started lazily by the
// first test that asks for it and stopped when the binary's tests are done.
// A package that uses the servers must therefore route its tests through
// Main, so there is a point after the last test where the servers can be
// killed and their directories removed:
//
//	func TestMain(m *testing.M) { testsrv.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		srv := testsrv.MariaDB(t)
//		db, dsn := srv.NewDatabase(t) // fresh database, dropped after the test
//		...
//	}
//
// A package with its own TestMain calls Run(m) instead and exits with its
// result. MariaDB and ClickHouse fail the test with that instruction if Main
// or Run is not in use, rather than leak servers.
//
// Isolation is per test, not per server: every test gets its own database
// (NewDatabase) and, where it needs one, its own MariaDB user (NewUser).
// Server-wide state (global variables, the binlog) is shared, so tests must
// not change it.
//
// # The LABGEN_TEST_SERVERS switch
//
//   - unset or empty: a test whose server binary is not installed is skipped,
//     with the Debian package to install in the reason.
//   - "require": a missing binary fails the test. CI sets this, so a broken
//     CI image cannot silently skip the database tests.
//   - "off": the tests are always skipped, even when the binaries exist.
//
// Any other value fails the test, so a typo cannot turn tests off. In every
// mode, a server that is installed but fails to start fails the test.
//
// # Cleanup when the test binary dies
//
// A test binary that crashes, is interrupted, or hits the go test timeout
// never reaches Main's teardown. On Linux the servers are therefore started
// with PR_SET_PDEATHSIG=SIGKILL, so the kernel kills them when the test
// binary dies, and in their own process group, so Ctrl-C reaches only the
// test binary and teardown can signal a server with all its children. Each
// server directory in $TMPDIR (labgen-testsrv-*) holds a flock owned by the
// test process; directories left behind by a dead process are removed the
// next time a server is started (once their lock file is a minute old).
// The process handling is internal/testproc's, which internal/testkafka
// uses too.
//
// Memory: each server takes roughly 75-95 MB resident, and go test ./...
// runs several test binaries at once, each with its own servers.
//
// # ClickHouse 18.16 and clickhouse-go v2
//
// Observed with clickhouse-go v2.51.0 against Debian's 18.16.1 (native
// protocol revision 54412):
//
//   - Works over the native protocol: Ping, ServerVersion, DDL, INSERT …
//     SELECT, SELECT with typed Scan (UInt64, String, DateTime, Nullable) and
//     with database/sql generic scanning, `?` parameter binding, the readonly
//     user (writes fail with code 164), and block inserts: conn.PrepareBatch
//     with Append and Send, and database/sql Begin, Prepare("INSERT INTO t
//     (…)"), Exec, Commit.
//   - Hangs: INSERT … VALUES (…) through Exec, both the native API and
//     database/sql. The 18.16 server treats inline VALUES as the first part
//     of the data and then waits for the client to send an end-of-data block;
//     the driver instead waits for the server, so both wait until the context
//     deadline (or the driver's read timeout, 5 minutes by default). The row
//     is not inserted and the driver discards the connection afterwards. Use
//     ClickHouseServer.Exec (HTTP), INSERT … SELECT or PrepareBatch instead.
//   - Fails: the driver's HTTP transport (Protocol: clickhouse.HTTP), because
//     its handshake sends client_protocol_version, an unknown setting here;
//     AsyncInsert (async_insert is unknown).
//
// ClickHouse 18.16 rejects (code 115, unknown setting) settings that current
// ClickHouse accepts, among them: async_insert, input_format_null_as_default,
// session_timezone, mutations_sync, alter_sync, date_time_output_format,
// allow_experimental_map_type, allow_experimental_object_type. It also lacks
// the Atomic database engine, the Map type, DateTime64/toDateTime64, and
// allows LowCardinality only behind an experimental setting. The rendered
// DDL targets current ClickHouse, so tests here should keep to the common
// subset (MergeTree family, plain types, Kafka engine tables do create).
package testsrv
