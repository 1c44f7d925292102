package testkafka

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
)

const (
	// EnvVar selects what happens when the broker's runtime is missing; see
	// the package documentation. It is internal/testsrv's switch.
	EnvVar = testproc.EnvVar
	// ClasspathEnv, when set, is the broker's Java class path and Maven is
	// not used.
	ClasspathEnv = "LABGEN_KAFKA_CLASSPATH"
	// BrokerEnv carries the broker address to the command run by withbroker.
	BrokerEnv = "LABGEN_KAFKA_BROKER"
	// Version is the Kafka release prove/kafka/pom.xml pins.
	Version = "4.1.0"
)

const (
	// startTimeout bounds formatting, start and readiness (not the Maven
	// download, which has its own bound). A healthy start takes 3-6 s.
	startTimeout = 90 * time.Second
	// mavenTimeout bounds the first resolution of the jars (~50 MB).
	mavenTimeout = 10 * time.Minute
	// dirPrefix names broker directories in os.TempDir(), so stale ones can
	// be found and swept.
	dirPrefix = "labgen-testkafka-"
)

// pace is how the starting broker is probed.
var pace = proc.Pace{Timeout: startTimeout, Probe: 2 * time.Second, Interval: 200 * time.Millisecond}

// ErrMissing is wrapped by Start's error when java or mvn is not installed:
// tests skip on it unless LABGEN_TEST_SERVERS=require.
var ErrMissing = errors.New("runtime missing")

// Server is a running broker.
type Server struct {
	// Addr is the PLAINTEXT listener, "127.0.0.1:port".
	Addr string
	// Dir holds server.properties, the data and the broker's output.
	Dir string

	dir  *proc.Dir
	proc *proc.Proc
}

// FormatStorage runs Kafka's own storage tool (kafka-storage.sh format)
// with clusterID on a fresh directory, removed afterwards: what a broker's
// first start does, so that a test can show an ID is one Kafka takes.
func FormatStorage(ctx context.Context, clusterID string) error {
	java, err := lookJava()
	if err != nil {
		return err
	}
	cp, err := classpath(ctx)
	if err != nil {
		return err
	}
	dir, err := proc.NewDir(dirPrefix, "")
	if err != nil {
		return err
	}
	defer dir.Remove()
	port, ctrl, err := twoFreePorts()
	if err != nil {
		return err
	}
	props := dir.Join("server.properties")
	if err := os.WriteFile(props, []byte(serverProperties(port, ctrl, dir.Join("data"))), 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", cp,
		"kafka.tools.StorageTool", "format", "-t", clusterID, "-c", props).CombinedOutput()
	if err != nil {
		return fmt.Errorf("kafka storage format -t %s: %v\n%s", clusterID, err, proc.Tail(string(out), 20))
	}
	return nil
}

// Start formats a fresh KRaft storage directory in $TMPDIR and starts a
// broker on free 127.0.0.1 ports, returning once a client can list the
// broker. The error wraps ErrMissing when java or mvn is not installed.
func Start(ctx context.Context) (*Server, error) {
	return start(ctx, func(dir *proc.Dir, java, cp string) (*Server, error) {
		srv, _, err := proc.RetryPorts(func() (*Server, *proc.Proc, error) {
			port, ctrl, err := twoFreePorts()
			if err != nil {
				return nil, nil, err
			}
			return launch(ctx, dir, java, cp, fmt.Sprintf("127.0.0.1:%d", port), func(data string) string {
				return serverProperties(port, ctrl, data)
			})
		})
		return srv, err
	})
}

// StartConfig starts a broker from the server.properties config returns
// for its (empty) data directory, such as a stack's own, and returns once
// a client at addr lists it. The caller chose the ports: a port taken is
// an error, not a retry. The error wraps ErrMissing when java or mvn is
// not installed.
func StartConfig(ctx context.Context, addr string, config func(data string) string) (*Server, error) {
	return start(ctx, func(dir *proc.Dir, java, cp string) (*Server, error) {
		s, _, err := launch(ctx, dir, java, cp, addr, config)
		return s, err
	})
}

// start finds java and the broker's class path, makes the broker's
// directory and runs in it; the directory goes when it fails.
func start(ctx context.Context, run func(dir *proc.Dir, java, cp string) (*Server, error)) (*Server, error) {
	java, err := lookJava()
	if err != nil {
		return nil, err
	}
	cp, err := classpath(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := proc.NewDir(dirPrefix, "")
	if err != nil {
		return nil, err
	}
	s, err := run(dir, java, cp)
	if err != nil {
		dir.Remove()
		return nil, err
	}
	return s, nil
}

// Stop kills the broker and removes its directory.
func (s *Server) Stop() error {
	return errors.Join(s.proc.Stop(), s.dir.Remove())
}

// launch formats the storage of config's broker and starts it, once a
// client at addr lists it.
func launch(ctx context.Context, dir *proc.Dir, java, cp, addr string, config func(data string) string) (*Server, *proc.Proc, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	log4j := dir.Join("log4j2.properties")
	if err := os.WriteFile(log4j, []byte(log4jConfig), 0o644); err != nil {
		return nil, nil, err
	}
	clusterID, err := newClusterID()
	if err != nil {
		return nil, nil, err
	}
	jvm := []string{
		"-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.awt.headless=true", "-Dlog4j2.configurationFile=" + log4j,
		"-cp", cp,
	}
	data := dir.Join("data")
	if err := os.RemoveAll(data); err != nil {
		return nil, nil, err
	}
	props := dir.Join("server.properties")
	if err := os.WriteFile(props, []byte(config(data)), 0o644); err != nil {
		return nil, nil, err
	}
	// kafka-storage.sh format: writes meta.properties with the cluster id.
	format := exec.CommandContext(ctx, java, append(append([]string{}, jvm...),
		"kafka.tools.StorageTool", "format", "-t", clusterID, "-c", props)...)
	if out, err := format.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("kafka storage format: %v\n%s", err, proc.Tail(string(out), 20))
	}
	cmd := exec.Command(java, append(append([]string{}, jvm...), "kafka.Kafka", props)...)
	cmd.Dir = dir.Path
	p, err := proc.StartProc("kafka broker", cmd, dir.Join("broker.out"), "")
	if err != nil {
		return nil, nil, err
	}
	if err := p.WaitReady(deadline, pace, func(ctx context.Context) error { return probe(ctx, addr) }); err != nil {
		p.Stop()
		return nil, p, err
	}
	return &Server{Addr: addr, Dir: dir.Path, dir: dir, proc: p}, p, nil
}

// twoFreePorts are the broker's and the controller's ports.
func twoFreePorts() (port, ctrl int, err error) {
	for {
		if port, err = proc.FreePort(); err != nil {
			return 0, 0, err
		}
		if ctrl, err = proc.FreePort(); err != nil {
			return 0, 0, err
		}
		if ctrl != port {
			return port, ctrl, nil
		}
	}
}

// probe succeeds once the broker answers a metadata request listing itself.
func probe(ctx context.Context, addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	brokers, err := kadm.NewClient(cl).ListBrokers(ctx)
	if err != nil {
		return err
	}
	if len(brokers) == 0 {
		return errors.New("no broker registered yet")
	}
	return nil
}

func serverProperties(port, ctrl int, data string) string {
	return fmt.Sprintf(`# Written by internal/testkafka: one KRaft node, broker and controller.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:%[2]d
listeners=PLAINTEXT://127.0.0.1:%[1]d,CONTROLLER://127.0.0.1:%[2]d
advertised.listeners=PLAINTEXT://127.0.0.1:%[1]d
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=%[3]s
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
share.coordinator.state.topic.num.partitions=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
background.threads=2
log.cleaner.threads=1
`, port, ctrl, data)
}

// log4jConfig keeps the broker's output to warnings, plus the line that
// says it started.
const log4jConfig = `status = warn
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stdout.ref = STDOUT
logger.raftserver.name = kafka.server.KafkaRaftServer
logger.raftserver.level = INFO
`

// newClusterID is what `kafka-storage.sh random-uuid` prints: 16 random
// bytes, URL-safe base64 without padding. Like Kafka's Uuid.randomUuid it
// never starts with '-': the storage tool would read such an ID as an
// option and refuse to format (one start in 64 failed that way).
func newClusterID() (string, error) {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		if id := base64.RawURLEncoding.EncodeToString(b[:]); !strings.HasPrefix(id, "-") {
			return id, nil
		}
	}
}

func lookJava() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: java not found in PATH or JAVA_HOME (install Debian package default-jre-headless; Kafka %s needs Java 17 or newer)", ErrMissing, Version)
	}
	return p, nil
}

// classpath returns the broker's class path: LABGEN_KAFKA_CLASSPATH, or the
// file prove/kafka/target/classpath.txt, (re)built with Maven when missing,
// older than the POM, or naming a jar that is gone.
func classpath(ctx context.Context) (string, error) {
	if cp := os.Getenv(ClasspathEnv); cp != "" {
		return cp, nil
	}
	pom, err := findPOM()
	if err != nil {
		return "", err
	}
	out := filepath.Join(filepath.Dir(pom), "target", "classpath.txt")
	if cp, ok := cachedClasspath(out, pom); ok {
		return cp, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("%w: mvn not found in PATH (install Debian package maven), needed once to fetch the Kafka %s jars; or set %s", ErrMissing, Version, ClasspathEnv)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	// Several test binaries may resolve at once: each writes its own file
	// and renames it into place.
	tmp := fmt.Sprintf("%s.tmp-%d", out, os.Getpid())
	ctx, cancel := context.WithTimeout(ctx, mavenTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-Dstyle.color=never", "-f", pom,
		"dependency:build-classpath", "-Dmdep.outputFile="+tmp)
	if b, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("resolve the Kafka jars (%s): %v\n%s", strings.Join(cmd.Args, " "), err, proc.Tail(string(b), 30))
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", err
	}
	cp, ok := cachedClasspath(out, pom)
	if !ok {
		return "", fmt.Errorf("%s: Maven wrote no usable class path", out)
	}
	return cp, nil
}

func cachedClasspath(path, pom string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if pst, err := os.Stat(pom); err != nil || st.ModTime().Before(pst.ModTime()) {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	cp := strings.TrimSpace(string(data))
	if cp == "" {
		return "", false
	}
	for _, jar := range filepath.SplitList(cp) {
		if _, err := os.Stat(jar); err != nil {
			return "", false
		}
	}
	return cp, true
}

// findPOM looks for prove/kafka/pom.xml in the working directory and its
// parents: go test runs in the package directory, withbroker anywhere in
// the repository.
func findPOM() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "prove", "kafka", "pom.xml")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("prove/kafka/pom.xml not found above the working directory; run inside the labgen repository or set %s", ClasspathEnv)
		}
		dir = parent
	}
}

// ---- one broker per test binary ----

// servers holds the shared broker, stopped by RunWith after the last test.
var servers = testproc.Servers{Teardown: "testkafka: stopping the broker"}

var shared testproc.Shared[Server]

// Main runs the package's tests and then stops the broker they started. Use
// it as the whole TestMain:
//
//	func TestMain(m *testing.M) { testkafka.Main(m) }
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for packages that have their own TestMain: it runs m, stops
// the broker, and returns the exit code for os.Exit.
func Run(m *testing.M) int { return RunWith(m, (*testing.M).Run) }

// RunWith runs the tests through run (for example testsrv.Run, to share
// both kinds of servers) and stops the broker afterwards:
//
//	func TestMain(m *testing.M) { os.Exit(testkafka.RunWith(m, testsrv.Run)) }
func RunWith(m *testing.M, run func(*testing.M) int) int {
	return servers.Run(m, run)
}

// Broker returns the address ("127.0.0.1:port") of the test binary's
// broker, starting it on first use. It skips or fails the test as
// LABGEN_TEST_SERVERS says when java or mvn is missing, and fails it when
// the broker does not start.
func Broker(t testing.TB) string {
	t.Helper()
	mode := testproc.Mode(t, "testkafka", "test servers")
	if !servers.Active() {
		t.Fatal("testkafka: the shared broker is stopped by testkafka.Main; add " +
			"`func TestMain(m *testing.M) { testkafka.Main(m) }` to this package's tests " +
			"(or call testkafka.Run / RunWith from an existing TestMain)")
	}
	srv, err := shared.Get(&servers, func() (*Server, func() error, error) {
		t.Logf("testkafka: starting Kafka %s", Version)
		srv, err := Start(context.Background())
		if err != nil {
			return nil, nil, err
		}
		return srv, srv.Stop, nil
	})
	switch {
	case errors.Is(err, ErrMissing):
		testproc.Missing(t, mode, "testkafka: "+err.Error())
	case errors.Is(err, testproc.ErrStopped):
		t.Fatal("testkafka: the broker was already stopped (Broker called after Main's tests ended?)")
	case err != nil:
		t.Fatalf("testkafka: %v", err)
	}
	return srv.Addr
}

var topicSeq atomic.Int64

// Topic creates a fresh topic with the given number of partitions on the
// shared broker and deletes it when the test ends. Its name is derived from
// the test name, so a topic in the broker's log points at its test.
func Topic(t testing.TB, partitions int32) string {
	t.Helper()
	addr := Broker(t)
	name := topicName(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatalf("testkafka: client: %v", err)
	}
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, partitions, 1, nil, name); err != nil {
		cl.Close()
		t.Fatalf("testkafka: create topic %s: %v", name, err)
	}
	t.Cleanup(func() {
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := adm.DeleteTopic(ctx, name); err != nil {
			t.Errorf("testkafka: delete topic %s: %v", name, err)
		}
	})
	return name
}

// topicName keeps [a-z0-9-] of the test name (legal in a topic name and in
// a consumer group) and appends a sequence number.
func topicName(t testing.TB) string {
	return testproc.Name(t, '-', 60, topicSeq.Add(1))
}
