package native

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

// Heap sizes of the JVMs whose memory Flink does not compute: small, so the
// whole stack fits in about 3.5 GB of RSS on a 2-core machine.
const (
	zooKeeperHeap = "128m"
	kafkaHeap     = "256m"
	flussHeap     = "256m"
	gatewayHeap   = "320m"
)

// smallJVM are the flags of the servers that are not Flink's: a fixed heap
// and a collector that keeps RSS near it.
func smallJVM(heap string) []string {
	return []string{"-Xms64m", "-Xmx" + heap, "-XX:+UseSerialGC", "-Djava.awt.headless=true"}
}

func classpathArg(jars []string) string { return strings.Join(jars, string(os.PathListSeparator)) }

// ZooKeeperService is Fluss's ZooKeeper (compose's zookeeper).
func ZooKeeperService(lay Layout, cp *Classpaths, p Ports) Service {
	conf := lay.Conf("zookeeper")
	cfg := filepath.Join(conf, "zoo.cfg")
	logback := filepath.Join(conf, "logback.xml")
	addr := fmt.Sprintf("127.0.0.1:%d", p.ZooKeeper)
	argv := append([]string{"java"}, smallJVM(zooKeeperHeap)...)
	argv = append(argv, "-Dlogback.configurationFile="+logback, "-Dzookeeper.admin.enableServer=false",
		"-cp", classpathArg(cp.ZooKeeper), "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg)
	return Service{
		Name:    "zookeeper",
		Argv:    argv,
		Version: jarVersion(cp.ZooKeeper, "zookeeper"),
		Files: map[string][]byte{
			cfg: fmt.Appendf(nil, `# Written by labgen: Fluss's ZooKeeper, one node on 127.0.0.1.
tickTime=2000
initLimit=10
syncLimit=5
dataDir=%s
clientPort=%d
clientPortAddress=127.0.0.1
4lw.commands.whitelist=srvr,ruok
admin.enableServer=false
`, lay.Data("zookeeper"), p.ZooKeeper),
			// ZooKeeper 3.9 logs through Logback, which says DEBUG without a
			// configuration.
			logback: []byte(`<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{yyyy-MM-dd'T'HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="out"/></root>
  <logger name="org.apache.zookeeper.server.ZooKeeperServerMain" level="INFO"/>
</configuration>
`),
		},
		Health: Probe{Func: func(ctx context.Context) error { return zkRuok(ctx, addr) }, Start: time.Minute},
		Memory: zooKeeperHeap + " heap", Why: "-Xmx set by labgen",
	}
}

// zkRuok asks ZooKeeper's four-letter "ruok", as its image's check does.
func zkRuok(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write([]byte("ruok")); err != nil {
		return err
	}
	b, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.HasPrefix(b, "imok") {
		return fmt.Errorf("zookeeper answered %q to ruok", b)
	}
	return nil
}

// KafkaService is a single KRaft node (broker and controller), its topics
// created once it answers.
func KafkaService(lay Layout, cp *Classpaths, p Ports, lab *schemas.Lab) Service {
	conf := lay.Conf("kafka")
	props := filepath.Join(conf, "server.properties")
	addr := fmt.Sprintf("127.0.0.1:%d", p.Kafka)
	propsBody := KafkaProperties(lab, lay, p)
	jvm := append(smallJVM(kafkaHeap), "-Dlog4j2.configurationFile="+cp.Log4j, "-cp", classpathArg(cp.Kafka))
	topics := lab.KafkaTopics()
	clusterID := lab.KafkaClusterID()
	return Service{
		Name:    "kafka",
		Argv:    append(append([]string{"java"}, jvm...), "kafka.Kafka", props),
		Version: jarVersion(cp.Kafka, "kafka_2.13"),
		Files:   map[string][]byte{props: propsBody},
		// kafka-storage.sh format; Files are written only at start, after
		// Setup, so Setup writes the properties too.
		Setup: func(ctx context.Context) error {
			if err := os.MkdirAll(conf, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(props, propsBody, 0o644); err != nil {
				return err
			}
			cmd := exec.CommandContext(ctx, "java", append(append([]string{}, jvm...),
				"kafka.tools.StorageTool", "format", "--ignore-formatted", "-t", clusterID, "-c", props)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("kafka storage format: %v\n%s", err, mavenTail(string(out), 20))
			}
			return nil
		},
		Health: Probe{Func: func(ctx context.Context) error { return kafkaBrokers(ctx, addr) }, Start: 90 * time.Second},
		Ready:  func(ctx context.Context) error { return CreateKafkaTopics(ctx, addr, topics) },
		Memory: kafkaHeap + " heap", Why: "-Xmx set by labgen",
	}
}

// KafkaProperties are compose's broker properties (render.KafkaSettings)
// with the native stack's overrides: one PLAINTEXT listener and the
// controller's on 127.0.0.1, the logs under the layout.
func KafkaProperties(lab *schemas.Lab, lay Layout, p Ports) []byte {
	s := render.KafkaSettings(lab).With(kafkaOverrides(lay, p), "")
	return append([]byte("# Written by labgen: one KRaft node, broker and controller, on 127.0.0.1.\n"), s.Properties()...)
}

// KafkaClickHouseListener is the broker's listener for ClickHouse when
// the Kafka → ClickHouse link runs through the link proxy.
const KafkaClickHouseListener = "CLICKHOUSE"

// kafkaOverrides are the keys of render.KafkaSettings the native stack
// sets otherwise.
func kafkaOverrides(lay Layout, p Ports) render.Settings {
	listeners := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", p.Kafka, p.KafkaController)
	advertised := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", p.Kafka)
	protocols := "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
	if p.KafkaClickHouse != 0 {
		// ClickHouse's own listener, advertised as the link proxy's
		// address: a client that bootstraps through the proxy is told
		// the proxy, so its fetches stay on the slowed link.
		listeners += fmt.Sprintf(",%s://127.0.0.1:%d", KafkaClickHouseListener, p.KafkaClickHouse)
		advertised += fmt.Sprintf(",%s://127.0.0.1:%d", KafkaClickHouseListener, p.LinkKafkaClickHouse)
		protocols += "," + KafkaClickHouseListener + ":PLAINTEXT"
	}
	return render.Settings{
		{Key: "listeners", Value: listeners},
		{Key: "advertised.listeners", Value: advertised},
		{Key: "listener.security.protocol.map", Value: protocols},
		{Key: "inter.broker.listener.name", Value: "PLAINTEXT"},
		{Key: "controller.quorum.voters", Value: fmt.Sprintf("1@127.0.0.1:%d", p.KafkaController)},
		{Key: "log.dirs", Value: filepath.Join(lay.Data("kafka"), "logs")},
	}
}

// kafkaBrokers succeeds once the broker answers a metadata request listing
// itself (compose runs kafka-broker-api-versions.sh).
func kafkaBrokers(ctx context.Context, addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(2*time.Second))
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

// CreateKafkaTopics creates the topics that do not exist yet, replication
// factor 1 (kafka-topics.sh --create --if-not-exists).
func CreateKafkaTopics(ctx context.Context, addr string, topics []schemas.KafkaTopic) error {
	if len(topics) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for _, t := range topics {
		res, err := adm.CreateTopic(ctx, int32(t.Partitions), 1, nil, t.Name)
		if err == nil {
			err = res.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("creating topic %s: %w", t.Name, err)
		}
	}
	return nil
}

// FlussServerYAML is compose's FLUSS_PROPERTIES (render.FlussSettings)
// with the native stack's addresses and directories: on 127.0.0.1, the
// warehouse and data of the layout. tablet is false for the coordinator.
func FlussServerYAML(l *schemas.Lab, lay Layout, p Ports, tablet bool) []byte {
	name := "coordinator-server"
	if tablet {
		name = "tablet-server"
	}
	s := render.FlussSettings(l, name).With(flussOverrides(l, lay, p, tablet), "")
	return append(fmt.Appendf(nil, "# Written by labgen: the %s of the native stack (compose's FLUSS_PROPERTIES).\n", name), s.YAML()...)
}

// flussOverrides are the keys of render.FlussSettings the native stack
// sets otherwise.
func flussOverrides(l *schemas.Lab, lay Layout, p Ports, tablet bool) render.Settings {
	port, name := p.FlussCoordinator, "coordinator-server"
	if tablet {
		port, name = p.FlussTablet, "tablet-server"
	}
	s := render.Settings{
		{Key: "zookeeper.address", Value: fmt.Sprintf("127.0.0.1:%d", p.ZooKeeper)},
		{Key: "bind.listeners", Value: fmt.Sprintf("FLUSS://127.0.0.1:%d", port)},
		{Key: "remote.data.dir", Value: filepath.Join(lay.Warehouse(), "fluss")},
		{Key: "datalake." + l.Stack.Fluss.Lake + ".warehouse", Value: filepath.Join(lay.Warehouse(), "paimon")},
	}
	if tablet {
		s = append(s, render.Setting{Key: "data.dir", Value: filepath.Join(lay.Data(name), "data")})
	}
	return s
}

// FlussCoordinatorService is compose's coordinator-server.
func FlussCoordinatorService(lay Layout, cp *Classpaths, p Ports, l *schemas.Lab) Service {
	return withFlussConfig(flussService(lay, cp, p, false), l, lay, p, false)
}

// FlussTabletService is compose's tablet-server.
func FlussTabletService(lay Layout, cp *Classpaths, p Ports, l *schemas.Lab) Service {
	return withFlussConfig(flussService(lay, cp, p, true), l, lay, p, true)
}

// withFlussConfig gives a Fluss server its server.yaml.
func withFlussConfig(s Service, l *schemas.Lab, lay Layout, p Ports, tablet bool) Service {
	s.Files = map[string][]byte{filepath.Join(lay.Conf(s.Name), "server.yaml"): FlussServerYAML(l, lay, p, tablet)}
	return s
}

func flussService(lay Layout, cp *Classpaths, p Ports, tablet bool) Service {
	name, main, port := "coordinator-server", "org.apache.fluss.server.coordinator.CoordinatorServer", p.FlussCoordinator
	if tablet {
		name, main, port = "tablet-server", "org.apache.fluss.server.tablet.TabletServer", p.FlussTablet
	}
	conf := lay.Conf(name)
	plugins := filepath.Join(conf, "plugins")
	argv := append([]string{"java"}, smallJVM(flussHeap)...)
	argv = append(argv, render.FlinkJava17Opts...)
	argv = append(argv, "-Dlog4j.configurationFile="+cp.Log4j, "-Dlog4j2.configurationFile="+cp.Log4j,
		"-cp", classpathArg(cp.Fluss), main, "--configDir", conf)
	pluginJars := cp.FlussPaimonPlugin
	return Service{
		Name:    name,
		Argv:    argv,
		Version: jarVersion(cp.Fluss, "fluss-server"),
		Env:     []string{"FLUSS_PLUGINS_DIR=" + plugins},
		// The image's mkdir of the warehouse, and its plugins/paimon folder
		// as links into the Maven repository.
		Setup: func(context.Context) error {
			for _, d := range []string{filepath.Join(lay.Warehouse(), "fluss"), filepath.Join(lay.Warehouse(), "paimon")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			return linkPlugin(filepath.Join(plugins, "paimon"), pluginJars)
		},
		Health: Probe{TCP: fmt.Sprintf("127.0.0.1:%d", port), Start: 90 * time.Second},
		Memory: flussHeap + " heap", Why: "-Xmx set by labgen",
	}
}

// linkPlugin makes dir hold exactly links to jars.
func linkPlugin(dir string, jars []string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, j := range jars {
		if err := os.Symlink(j, filepath.Join(dir, filepath.Base(j))); err != nil {
			return err
		}
	}
	return nil
}

// nativeFlinkWhy heads the keys the native stack adds to Flink's.
const nativeFlinkWhy = "Set by labgen for the native stack."

// flinkOverrides are the keys the native stack sets on
// render.FlinkSettings: addresses and bind hosts 127.0.0.1, the ports of
// p, checkpoints and temporary files under the layout. The keys the
// settings lack (flinkAdded) come last.
func flinkOverrides(lay Layout, p Ports) render.Settings {
	tmp := filepath.Join(lay.State, "tmp")
	return render.Settings{
		{Key: "jobmanager.rpc.address", Value: "127.0.0.1"},
		{Key: "jobmanager.rpc.port", Value: strconv.Itoa(p.FlinkRPC)},
		{Key: "jobmanager.bind-host", Value: "127.0.0.1"},
		{Key: "taskmanager.bind-host", Value: "127.0.0.1"},
		{Key: "taskmanager.host", Value: "127.0.0.1"},
		{Key: "rest.address", Value: "127.0.0.1"},
		{Key: "rest.port", Value: strconv.Itoa(p.FlinkREST)},
		{Key: "rest.bind-address", Value: "127.0.0.1"},
		{Key: "blob.server.port", Value: strconv.Itoa(p.FlinkBlob)},
		{Key: "sql-gateway.endpoint.rest.address", Value: "127.0.0.1"},
		{Key: "sql-gateway.endpoint.rest.bind-address", Value: "127.0.0.1"},
		{Key: "sql-gateway.endpoint.rest.port", Value: strconv.Itoa(p.Gateway)},
		{Key: "execution.checkpointing.dir", Value: "file://" + lay.Checkpoints()},
		{Key: "execution.checkpointing.savepoint-dir", Value: "file://" + filepath.Join(lay.Checkpoints(), "savepoints")},
		{Key: "io.tmp.dirs", Value: filepath.Join(tmp, "flink-io")},
		{Key: "web.tmpdir", Value: filepath.Join(tmp, "flink-web")},
	}
}

// flinkAdded are the overrides compose's configuration has no key for:
// containers have their own address and temporary directories.
var flinkAdded = map[string]bool{"taskmanager.host": true, "io.tmp.dirs": true, "web.tmpdir": true}

// FlinkConfig is the lab's Flink configuration (render.FlinkSettings, the
// settings of compose's flink/config.yaml) with the native stack's
// overrides; every other key (memory, slots, restart strategy, checkpoint
// interval, Java 17 options) is compose's.
func FlinkConfig(l *schemas.Lab, lay Layout, p Ports) render.Settings {
	return render.FlinkSettings(l).With(flinkOverrides(lay, p), nativeFlinkWhy)
}

// flinkYAML is the native stack's config.yaml.
func flinkYAML(config render.Settings) []byte {
	return append([]byte("# Written by labgen: flink/config.yaml's settings with the native stack's addresses, ports and directories.\n"), config.YAML()...)
}

// FlinkResourceParams runs Flink's BashJavaUtils as bin/jobmanager.sh and
// bin/taskmanager.sh do (GET_JM_RESOURCE_PARAMS / GET_TM_RESOURCE_PARAMS):
// jvm are the JVM memory flags, dynamic the "-D key=value" arguments the
// entry point gets.
func FlinkResourceParams(ctx context.Context, cp *Classpaths, config render.Settings, what string) (jvm, dynamic []string, err error) {
	dir, err := os.MkdirTemp("", "labgen-flink-conf-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), flinkYAML(config), 0o644); err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, "java", "-Xmx128m", "-XX:+UseSerialGC",
		"-Dlog4j2.configurationFile="+cp.Log4j, "-cp", classpathArg(cp.Flink),
		"org.apache.flink.runtime.util.bash.BashJavaUtils", what, "--configDir", dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, nil, fmt.Errorf("flink BashJavaUtils %s: %v\n%s", what, err, mavenTail(string(out), 20))
	}
	const prefix = "BASH_JAVA_UTILS_EXEC_RESULT:"
	var res []string
	for _, line := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			res = append(res, r)
		}
	}
	if len(res) < 2 {
		return nil, nil, fmt.Errorf("flink BashJavaUtils %s printed no result:\n%s", what, mavenTail(string(out), 20))
	}
	// The last two results, as config.sh's extractExecutionResults takes them.
	res = res[len(res)-2:]
	return strings.Fields(res[0]), strings.Fields(res[1]), nil
}

// flinkJVM is the start of a Flink JVM's command: java, its memory flags,
// the Java 17 options and logging.
func flinkJVM(cp *Classpaths, lay Layout, name string, mem []string) []string {
	argv := append([]string{"java"}, mem...)
	argv = append(argv, render.FlinkJava17Opts...)
	return append(argv, "-Dlog.file="+lay.Log(name),
		"-Dlog4j.configuration="+cp.Log4j, "-Dlog4j.configurationFile="+cp.Log4j,
		"-cp", classpathArg(cp.Flink))
}

// JobManagerService is the session cluster's JobManager; config is
// FlinkConfig's output. It runs BashJavaUtils to size the JVM.
func JobManagerService(ctx context.Context, lay Layout, cp *Classpaths, p Ports, config render.Settings) (Service, error) {
	mem, dyn, err := FlinkResourceParams(ctx, cp, config, "GET_JM_RESOURCE_PARAMS")
	if err != nil {
		return Service{}, err
	}
	conf := lay.Conf("jobmanager")
	argv := append(flinkJVM(cp, lay, "jobmanager", mem),
		"org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", "--configDir", conf)
	argv = append(argv, dyn...)
	rest := fmt.Sprintf("http://127.0.0.1:%d", p.FlinkREST)
	return Service{
		Name:    "jobmanager",
		Argv:    argv,
		Version: jarVersion(cp.Flink, "flink-runtime"),
		Env:     []string{"FLINK_CONF_DIR=" + conf},
		Files:   flinkFiles(lay, conf, config),
		Health:  httpProbe("jobmanager", rest, 2*time.Minute),
		Memory:  flinkValue(config, "jobmanager.memory.process.size"),
		Why:     "jobmanager.memory.process.size of flink/config.yaml",
	}, nil
}

// TaskManagerService is one TaskManager of the session cluster, named as
// its compose service is (taskmanager, taskmanager-2, …).
func TaskManagerService(ctx context.Context, lay Layout, cp *Classpaths, p Ports, config render.Settings, name string) (Service, error) {
	mem, dyn, err := FlinkResourceParams(ctx, cp, config, "GET_TM_RESOURCE_PARAMS")
	if err != nil {
		return Service{}, err
	}
	conf := lay.Conf(name)
	argv := append(flinkJVM(cp, lay, name, mem),
		"org.apache.flink.runtime.taskexecutor.TaskManagerRunner", "--configDir", conf)
	// Its resource ID is its name: the JobManager lists it under that ID,
	// which the health check looks for.
	argv = append(append(argv, dyn...), "-Dtaskmanager.resource-id="+name)
	rest := fmt.Sprintf("http://127.0.0.1:%d", p.FlinkREST)
	return Service{
		Name:    name,
		Argv:    argv,
		Version: jarVersion(cp.Flink, "flink-runtime"),
		Env:     []string{"FLINK_CONF_DIR=" + conf},
		Files:   flinkFiles(lay, conf, config),
		// compose greps /taskmanagers for the container's address; here
		// every TaskManager is on 127.0.0.1, so it is found by its ID.
		Health: Probe{Func: func(ctx context.Context) error { return taskManagerRegistered(ctx, rest, name) }, Start: 2 * time.Minute},
		Memory: flinkValue(config, "taskmanager.memory.process.size"),
		Why:    "taskmanager.memory.process.size of flink/config.yaml",
	}, nil
}

// SQLGatewayService is Flink's SQL gateway, sending jobs to the session
// cluster.
func SQLGatewayService(lay Layout, cp *Classpaths, p Ports, config render.Settings) Service {
	conf := lay.Conf("sql-gateway")
	argv := append(flinkJVM(cp, lay, "sql-gateway", smallJVM(gatewayHeap)),
		"org.apache.flink.table.gateway.SqlGateway", "-Dexecution.target=remote")
	return Service{
		Name:    "sql-gateway",
		Argv:    argv,
		Version: jarVersion(cp.Flink, "flink-sql-gateway"),
		Env:     []string{"FLINK_CONF_DIR=" + conf},
		Files:   flinkFiles(lay, conf, config),
		Health:  httpProbe("sql-gateway", fmt.Sprintf("http://127.0.0.1:%d", p.Gateway), 2*time.Minute),
		Memory:  gatewayHeap + " heap", Why: "-Xmx set by labgen",
	}
}

func flinkFiles(lay Layout, conf string, config render.Settings) map[string][]byte {
	return map[string][]byte{
		filepath.Join(conf, "config.yaml"): flinkYAML(config),
		// io.tmp.dirs and web.tmpdir must exist.
		filepath.Join(lay.State, "tmp", "flink-io", ".keep"):  nil,
		filepath.Join(lay.State, "tmp", "flink-web", ".keep"): nil,
	}
}

func flinkValue(config render.Settings, key string) string {
	if v, ok := config.Value(key); ok {
		return fmt.Sprint(v)
	}
	return ""
}

// taskManagerRegistered succeeds once the JobManager lists the
// TaskManager of resource ID id.
func taskManagerRegistered(ctx context.Context, rest, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rest+"/taskmanagers", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("GET /taskmanagers: %s", resp.Status)
	}
	var body struct {
		TaskManagers []struct {
			ID string `json:"id"`
		} `json:"taskmanagers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return err
	}
	for _, tm := range body.TaskManagers {
		if tm.ID == id {
			return nil
		}
	}
	return fmt.Errorf("TaskManager %s is not registered yet (%d are)", id, len(body.TaskManagers))
}

// TieringArgs are the tiering job's arguments, as flink-jobs.sh passes
// them, for the native stack's Fluss and warehouse.
func TieringArgs(lay Layout, p Ports) []string {
	return []string{
		"--fluss.bootstrap.servers", fmt.Sprintf("127.0.0.1:%d", p.FlussCoordinator),
		"--datalake.format", "paimon",
		"--datalake.paimon.metastore", "filesystem",
		"--datalake.paimon.warehouse", filepath.Join(lay.Warehouse(), "paimon"),
	}
}
