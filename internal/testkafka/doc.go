// Package testkafka starts a real Apache Kafka broker for tests: Kafka 4.1.0
// (the version of the lab's apache/kafka:4.1.0 image), one KRaft node with
// the broker and controller roles, run on the JVM from Maven Central jars.
// Nothing is mocked: tests talk to the same broker code, protocol versions
// and group coordinator the rendered labs use. kfake stays the fast,
// in-process choice for most tests; this package is for the ones that must
// hold against the real broker.
//
// # Usage
//
// Each test binary shares one broker, started lazily by the first test that
// asks for it and killed when the binary's tests are done, as with
// internal/testsrv. Route the package's tests through Main:
//
//	func TestMain(m *testing.M) { testkafka.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		addr := testkafka.Broker(t)        // "127.0.0.1:port", PLAINTEXT
//		topic := testkafka.Topic(t, 3)     // fresh topic, 3 partitions, deleted after the test
//		cl, _ := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic))
//		...
//	}
//
// A package with its own TestMain calls Run(m) and exits with its result. A
// package that also uses internal/testsrv chains the two:
//
//	func TestMain(m *testing.M) { os.Exit(testkafka.RunWith(m, testsrv.Run)) }
//
// Broker and Topic fail the test if Main, Run or RunWith is not in use,
// rather than leak a broker.
//
// Isolation is per topic, not per broker: give each test its own topics
// (Topic) and consumer group names. Broker-wide state is shared.
//
// Broker settings (server.properties, written into the broker's directory):
// listeners PLAINTEXT on 127.0.0.1:<free port> (also advertised) and
// CONTROLLER on another free port; auto.create.topics.enable=true with one
// partition by default; replication factor 1 and a single partition for the
// offsets, transaction and share-state topics, so the first consumer group
// does not wait for 50 partitions; group.initial.rebalance.delay.ms=0.
// Messages with a null value (tombstones) are kept as null, as on the lab's
// broker. The JVM runs with -Xmx256m and the serial collector: it takes
// about 300 MB resident and starts in 3 to 6 seconds on two cores, storage
// formatting (kafka.tools.StorageTool) included.
//
// # The broker's jars
//
// prove/kafka/pom.xml pins org.apache.kafka:kafka_2.13 and the Log4j binding
// the Kafka distribution uses. The class path is resolved once with
//
//	mvn -q -f prove/kafka/pom.xml dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
//
// (the jars land in ~/.m2, the file in prove/kafka/target/, both kept
// between runs; a stale or broken file is rebuilt). LABGEN_KAFKA_CLASSPATH,
// when set, is used instead (for example "/opt/kafka/libs/*" of an unpacked
// Kafka 4.x distribution) and Maven is not needed.
//
// # The LABGEN_TEST_SERVERS switch
//
// The same switch as internal/testsrv:
//
//   - unset or empty: a test is skipped when java, or mvn (without
//     LABGEN_KAFKA_CLASSPATH), is not installed, with the Debian packages to
//     install in the reason.
//   - "require": a missing runtime fails the test. CI sets this.
//   - "off": the tests are always skipped.
//
// Any other value fails the test. In every mode a broker that is installed
// but fails to start (or a Maven resolution that fails) fails the test with
// the end of the broker's output.
//
// # Outside tests
//
// Start and Server.Stop run the same broker without a testing.T; the
// program in ./withbroker uses them to give a command (prove/prove.sh's
// ClickHouse check) a broker for its lifetime:
//
//	go run ./internal/testkafka/withbroker CMD ARGS…   # CMD sees LABGEN_KAFKA_BROKER=127.0.0.1:port
//
// # Cleanup when the test binary dies
//
// As in internal/testsrv (both run their servers through internal/testproc):
// on Linux the JVM is started with PR_SET_PDEATHSIG=SIGKILL in its own
// process group, and its directory in $TMPDIR (labgen-testkafka-*) holds a
// flock owned by the test process; directories left behind by a dead
// process are removed the next time a broker starts (once their lock file
// is a minute old).
package testkafka
