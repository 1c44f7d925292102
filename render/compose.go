package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/labgen/labgen/schemas"
)

// Service order: how compose.yaml's services are listed in the smoke
// checks and the docs (compose.yaml itself sorts them by name).
var serviceOrder = schemas.ServiceOrder()

// Named volumes of the stack.
const (
	volKafka       = "kafka-data"
	volClickHouse  = "clickhouse-data"
	volCheckpoints = "flink-checkpoints"
	volWarehouse   = "warehouse"
	volZooKeeper   = "zookeeper-data"
	volZooKeeperTx = "zookeeper-datalog"
	volFluss       = "fluss-data"
)

// stack is the compose project of a lab and what the scripts need to know
// about its services.
type stack struct {
	project *types.Project
	// oneShot marks services that run once and exit 0.
	oneShot map[string]bool
}

// services lists the stack's services in serviceOrder, the TaskManagers
// after the first one (taskmanager, taskmanager-2, …).
func (s *stack) services() []string {
	var out []string
	for _, name := range serviceOrder {
		if _, ok := s.project.Services[name]; ok {
			out = append(out, name)
		}
		if name == "taskmanager" {
			for i := 2; ; i++ {
				n := TaskManagerName(i)
				if _, ok := s.project.Services[n]; !ok {
					break
				}
				out = append(out, n)
			}
		}
	}
	return out
}

// TaskManagerName names the i-th TaskManager (from 1): taskmanager,
// taskmanager-2, … Each is its own service, so that `stop taskmanager`
// stops exactly one whatever the count (a service with replicas would
// stop them all).
func TaskManagerName(i int) string {
	if i <= 1 {
		return "taskmanager"
	}
	return fmt.Sprintf("taskmanager-%d", i)
}

// TaskManagerNames lists the TaskManager services of the lab.
func TaskManagerNames(l *schemas.Lab) []string {
	if l.Stack.Flink == nil {
		return nil
	}
	var out []string
	for i := 1; i <= max(1, l.Stack.Flink.TaskManagers); i++ {
		out = append(out, TaskManagerName(i))
	}
	return out
}

// ProjectName is the compose project of the lab rendered into dir (its
// absolute path, as Options.Dir): its containers, networks and volumes.
// Two directories of one lab are two projects, so that down --volumes in
// one never removes the other's data; one directory keeps its name from
// render to render. .env and compose.yaml both carry it.
func ProjectName(l *schemas.Lab, dir string) string {
	if dir == "" {
		return imagePrefix(l)
	}
	h := sha256.Sum256([]byte(dir))
	return imagePrefix(l) + "-" + hex.EncodeToString(h[:4])
}

// imagePrefix names the images the lab builds (PREFIX-flink:TAG, …): per
// lab, not per directory, since their tags hash their build contexts and
// directories that build the same image may share it.
func imagePrefix(l *schemas.Lab) string {
	return "labgen-" + strings.ReplaceAll(l.Name, "_", "-")
}

// composeYAML marshals the project deterministically: compose-go's YAML
// encoder writes struct fields in order and map keys sorted.
func composeYAML(l *schemas.Lab, p *types.Project) ([]byte, error) {
	body, err := p.MarshalYAML()
	if err != nil {
		return nil, fmt.Errorf("encoding compose.yaml: %w", err)
	}
	head := generated(l, "#") + `# The whole stack of the lab: ` + "`docker compose up -d --build`" + ` in this directory
# (or ./stream-lab compose up -d --build) runs it. Passwords come from .env;
# published ports listen on 127.0.0.1 only.
`
	return append([]byte(head), body...), nil
}

// Helpers that keep the service definitions short.

func str(s string) *string { return &s }

// envRef is a ${NAME} reference that compose fills from .env.
func envRef(name string) string { return "${" + name + "}" }

func env(kv ...string) types.MappingWithEquals {
	m := types.MappingWithEquals{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = str(kv[i+1])
	}
	return m
}

// fromEnv passes .env variables through under their own names.
func fromEnv(m types.MappingWithEquals, names ...string) types.MappingWithEquals {
	if m == nil {
		m = types.MappingWithEquals{}
	}
	for _, n := range names {
		m[n] = str(envRef(n))
	}
	return m
}

// publish binds a container port to 127.0.0.1:host.
func publish(host int, container uint32) types.ServicePortConfig {
	return types.ServicePortConfig{HostIP: "127.0.0.1", Published: strconv.Itoa(host), Target: container, Protocol: "tcp"}
}

func namedVolume(name, target string) types.ServiceVolumeConfig {
	return types.ServiceVolumeConfig{Type: types.VolumeTypeVolume, Source: name, Target: target}
}

func bindRO(source, target string) types.ServiceVolumeConfig {
	return types.ServiceVolumeConfig{Type: types.VolumeTypeBind, Source: source, Target: target, ReadOnly: true}
}

// labMount shows the rendered directory read-only at /lab.
func labMount() types.ServiceVolumeConfig { return bindRO(".", LabMount) }

func dur(d time.Duration) *types.Duration { v := types.Duration(d); return &v }

// health is a CMD-SHELL health check. Shell variables of the container are
// written $$NAME so that compose leaves them alone.
func health(cmd string, interval, startPeriod time.Duration, retries uint64) *types.HealthCheckConfig {
	return &types.HealthCheckConfig{
		Test:        types.HealthCheckTest{"CMD-SHELL", cmd},
		Interval:    dur(interval),
		Timeout:     dur(10 * time.Second),
		StartPeriod: dur(startPeriod),
		Retries:     &retries,
	}
}

// shell runs a script with /bin/sh instead of the image's entrypoint.
func shell(script string) types.ShellCommand {
	return types.ShellCommand{"/bin/sh", "-c", script}
}

// dependsOn is a service's depends_on: its needs in the registry
// (schemas.ServiceDesc.Needs), a need of "taskmanager" one on each
// TaskManager.
func dependsOn(l *schemas.Lab, name string) types.DependsOnConfig {
	out := types.DependsOnConfig{}
	for _, n := range l.ServiceNeeds(name) {
		d := types.ServiceDependency{Condition: types.ServiceConditionHealthy, Required: !n.Optional}
		if n.Completed {
			d.Condition = types.ServiceConditionCompletedSuccessfully
		}
		names := []string{n.Service}
		if n.Service == "taskmanager" {
			names = TaskManagerNames(l)
		}
		for _, s := range names {
			out[s] = d
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// buildStack assembles the compose project of the lab. files must already
// hold the rendered Flink and labgen build contexts: the images are tagged
// with a hash of them. project is its name (ProjectName).
func buildStack(l *schemas.Lab, project string, files Files) *stack {
	s := l.Stack
	st := &stack{
		project: &types.Project{
			Name:     project,
			Services: types.Services{},
			Volumes:  types.Volumes{},
		},
		oneShot: map[string]bool{},
	}
	// One build per image: the first service of an image builds it, the
	// others name the image only. Compose builds through buildx bake,
	// which exports its targets concurrently, and a second export of the
	// same tag fails ("image … already exists").
	built := map[string]bool{}
	add := func(name string, svc types.ServiceConfig) {
		svc.Name = name
		svc.DependsOn = dependsOn(l, name)
		// Its health check is its description's (schemas' registry).
		if d := schemas.Service(name); d != nil && d.Health != nil {
			svc.HealthCheck = health(d.Health.Test(l), d.Health.Interval, d.Health.StartPeriod, d.Health.Retries)
		}
		switch {
		case st.oneShot[name] && svc.Restart == "":
			svc.Restart = types.RestartPolicyNo
		case !st.oneShot[name]:
			svc.Restart = types.RestartPolicyUnlessStopped
		}
		if svc.Build != nil {
			if built[svc.Image] {
				svc.Build = nil
				// Never pulled: another service of the project builds
				// it. With the default policy (missing) compose's up
				// tries to pull the tag first, prints a red Error for
				// each such service, then ignores the failure because
				// a service of the project builds the image (docker/
				// compose pkg/compose/pull.go: pullRequiredImages,
				// isServiceImageToBuild). "never" skips the pull (mustPull);
				// up builds the image (ensureImagesExists) before it
				// creates any container.
				svc.PullPolicy = types.PullPolicyNever
			}
			built[svc.Image] = true
		}
		for _, v := range svc.Volumes {
			if v.Type == types.VolumeTypeVolume {
				st.project.Volumes[v.Source] = types.VolumeConfig{}
			}
		}
		st.project.Services[name] = svc
	}
	oneShot := func(name string, svc types.ServiceConfig) {
		st.oneShot[name] = true
		add(name, svc)
	}

	// What each service waits for (depends_on) is its needs in the
	// registry.
	for _, d := range sources(l) {
		add(d.component, d.service(l))
	}
	if s.Kafka != nil {
		add("kafka", kafkaService(l))
		oneShot("kafka-init", kafkaInitService(l))
		if s.KafkaUI != nil {
			add("kafka-ui", kafkaUIService(l))
		}
	}
	if s.ClickHouse != nil {
		add("clickhouse", clickhouseService(l))
		oneShot("clickhouse-init", clickhouseInitService(l))
	}
	if s.Fluss != nil {
		add("zookeeper", zookeeperService(l))
		add("coordinator-server", flussService(l, "coordinator-server"))
		add("tablet-server", flussService(l, "tablet-server"))
	}
	if s.Flink != nil {
		image := builtImageTag(imagePrefix(l), "flink", files, "flink/")
		add("jobmanager", jobmanagerService(l, image))
		for _, tm := range TaskManagerNames(l) {
			add(tm, taskmanagerService(l, image))
		}
		add("sql-gateway", gatewayService(l, image))

		if s.Fluss != nil {
			// A failed start of the tiering job is retried: by Docker
			// three times at once, then by the job submitter's keep loop
			// every 30 s (keep_once starts the tiering job when it does
			// not run), which starts whatever tiering's exit status.
			// While Docker restarts it, the container is "restarting",
			// never "exited" (moby daemon/monitor.go: SetRestarting),
			// so compose's wait for service_completed_successfully
			// (pkg/compose/convergence.go: checkDependencyCompleted)
			// goes on waiting, and labgen up does not take it for a
			// failure; only exit 0 or a fourth failure ends the wait.
			// The job submitter still waits for tiering to end, so that
			// the two never start the tiering job or create the lake
			// tables at the same time.
			tiering := flinkTool(l, image, "tiering", "tiering")
			tiering.Restart = tieringRestart
			oneShot("tiering", tiering)
		}
		// The job submitter keeps the lab's streaming jobs running: the
		// JobManager has no high availability, so after it restarts (a
		// crash, a Docker restart) or the restart strategy gives up, the
		// jobs are gone until something submits them again. Its need of
		// tiering is optional: once tiering has failed for good, compose
		// starts the job submitter anyway (checkDependencyCompleted: a
		// dependency that is not required and exits non-zero is skipped
		// with a warning), and its keep loop retries the tiering job.
		// Required, one bad start would leave the streaming jobs
		// unsubmitted until someone ran up again.
		add("job-submitter", flinkTool(l, image, "job-submitter", "keep"))
		if s.BatchLoop != nil && len(l.AvailableJobs(schemas.ModeBatch)) > 0 {
			add("batch-loop", flinkTool(l, image, "batch-loop", "batch-loop"))
		}
	}
	if needsLabgenImage(l) {
		image := builtImageTag(imagePrefix(l), "labgen", files, "labgen/")
		if producerRuns(l) {
			add("producer", producerService(l, image))
		}
		if s.Console != nil {
			add("console", consoleService(l, image))
		}
	}
	for _, m := range memoryPlan(l, st) {
		svc := st.project.Services[m.Service]
		// mem_limit rather than deploy.resources.limits.memory: both are
		// applied by Docker Compose v2 without swarm, but mem_limit is the
		// service's own attribute in every Compose version (docker-compose
		// v1 ignored deploy without --compatibility).
		svc.MemLimit = types.UnitBytes(int64(m.MB) << 20)
		st.project.Services[m.Service] = svc
	}
	return st
}

// tieringRestart restarts the one-shot tiering service after a failure,
// at most three times (compose's restart: on-failure:N is the engine's
// MaximumRetryCount).
const tieringRestart = types.RestartPolicyOnFailure + ":3"

func kafkaService(l *schemas.Lab) types.ServiceConfig {
	k := l.Stack.Kafka
	svc := types.ServiceConfig{}
	svc.Image = k.Image
	svc.Environment = env(
		"CLUSTER_ID", l.KafkaClusterID(),
		// kafka-server-start.sh takes the heap from here (1 GB if unset).
		// The image's configure step also writes it into the broker's
		// properties as heap.opts (its exclude list names KAFKA_HEAP_OPT),
		// which the broker ignores with a warning.
		"KAFKA_HEAP_OPTS", heap(l, "kafka"),
	)
	for _, x := range KafkaSettings(l) {
		svc.Environment[kafkaEnvName(x.Key)] = str(x.Text())
	}
	svc.Volumes = []types.ServiceVolumeConfig{namedVolume(volKafka, kafkaDataDir)}
	svc.Ports = []types.ServicePortConfig{publish(k.Port, 9092)}
	return svc
}

// kafkaTopics lists the lab's topics with their partitions, in table order.
func kafkaTopics(l *schemas.Lab) [][2]string {
	var out [][2]string
	for _, t := range l.KafkaTopics() {
		out = append(out, [2]string{t.Name, strconv.Itoa(t.Partitions)})
	}
	return out
}

func kafkaInitService(l *schemas.Lab) types.ServiceConfig {
	script := "set -e\n"
	for _, tp := range kafkaTopics(l) {
		script += fmt.Sprintf("/opt/kafka/bin/kafka-topics.sh --bootstrap-server %s --create --if-not-exists --topic %s --partitions %s --replication-factor 1\n", KafkaInternal, tp[0], tp[1])
	}
	script += "echo kafka-init: topics ready\n"
	svc := types.ServiceConfig{}
	svc.Image = l.Stack.Kafka.Image
	svc.Environment = env("KAFKA_HEAP_OPTS", heap(l, "kafka-init"))
	svc.Entrypoint = shell(script)
	return svc
}

func kafkaUIService(l *schemas.Lab) types.ServiceConfig {
	svc := types.ServiceConfig{}
	svc.Image = l.Stack.KafkaUI.Image
	svc.Environment = env(
		"KAFKA_CLUSTERS_0_NAME", l.Name,
		"KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS", KafkaInternal,
		// The image runs java $JAVA_OPTS -jar.
		"JAVA_OPTS", heap(l, "kafka-ui"),
	)
	svc.Ports = []types.ServicePortConfig{publish(l.Stack.KafkaUI.Port, 8080)}
	return svc
}

func clickhouseService(l *schemas.Lab) types.ServiceConfig {
	c := l.Stack.ClickHouse
	svc := types.ServiceConfig{}
	svc.Image = c.Image
	m := fromEnv(nil, "CLICKHOUSE_USER", "CLICKHOUSE_PASSWORD", "CLICKHOUSE_READER_PASSWORD")
	m["CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT"] = str("1")
	svc.Environment = m
	svc.Volumes = []types.ServiceVolumeConfig{
		namedVolume(volClickHouse, "/var/lib/clickhouse"),
		bindRO("./clickhouse/users.xml", "/etc/clickhouse-server/users.d/lab-users.xml"),
	}
	svc.Ports = []types.ServicePortConfig{publish(c.HTTPPort, 8123), publish(c.TCPPort, 9000)}
	svc.Ulimits = map[string]*types.UlimitsConfig{"nofile": {Soft: 262144, Hard: 262144}}
	return svc
}

func clickhouseInitService(l *schemas.Lab) types.ServiceConfig {
	svc := types.ServiceConfig{}
	svc.Image = l.Stack.ClickHouse.Image
	svc.Environment = fromEnv(nil, "CLICKHOUSE_USER", "CLICKHOUSE_PASSWORD")
	// clickhouse-client takes the user and password from CLICKHOUSE_USER
	// and CLICKHOUSE_PASSWORD (since 22.3, ClickHouse PR 34947): on its
	// command line the password would show in every process list.
	svc.Entrypoint = shell(`clickhouse-client --host clickhouse --multiquery < ` + LabMount + `/sql/clickhouse/schema.sql && echo clickhouse-init: schema applied`)
	svc.Volumes = []types.ServiceVolumeConfig{labMount()}
	return svc
}

func zookeeperService(l *schemas.Lab) types.ServiceConfig {
	svc := types.ServiceConfig{}
	svc.Image = zookeeperImage(l.Stack.Fluss)
	// zkEnv.sh turns ZK_SERVER_HEAP (MB, 1000 if unset) into -Xmx.
	svc.Environment = env("ZOO_4LW_COMMANDS_WHITELIST", "srvr,ruok", "ZK_SERVER_HEAP", strconv.Itoa(schemas.ZooKeeperHeapMB))
	svc.Volumes = []types.ServiceVolumeConfig{namedVolume(volZooKeeper, "/data"), namedVolume(volZooKeeperTx, "/datalog")}
	return svc
}

// Where a tablet server keeps its local data: a directory of the
// fluss-data volume.
const (
	flussVolumeDir = "/var/lib/fluss"
	flussDataDir   = flussVolumeDir + "/data"
)

// flussService is the coordinator or a tablet server. Both start with
// umask 0 (kept by the image's entrypoint, whether it runs the server as
// root or drops to its fluss user), so that the Paimon tables and remote
// data they create on the shared warehouse volume stay writable by the
// tiering job, which runs as Flink's user.
func flussService(l *schemas.Lab, name string) types.ServiceConfig {
	f := l.Stack.Fluss
	remote := WarehouseDir + "/fluss"
	cmd := "coordinatorServer"
	dirs := []string{PaimonWarehouse, remote}
	vols := []types.ServiceVolumeConfig{namedVolume(volWarehouse, WarehouseDir)}
	if name == "tablet-server" {
		cmd = "tabletServer"
		vols = append(vols, namedVolume(volFluss, flussVolumeDir))
		// The fluss-data volume is new and root's (the image has no
		// /var/lib/fluss to copy ownership from), and the Apache image's
		// entrypoint starts the servers as its fluss user through gosu
		// (apache/fluss docker/fluss/docker-entrypoint.sh): create the
		// data directory here, writable by that user.
		dirs = append(dirs, flussDataDir)
	}
	svc := types.ServiceConfig{}
	svc.Image = f.Image
	// Fluss's config.sh passes JVM_ARGS from the environment to the
	// server's JVM (no heap is set otherwise: a quarter of the limit).
	svc.Environment = env("FLUSS_PROPERTIES", string(FlussSettings(l, name).YAML()), "JVM_ARGS", heap(l, name))
	svc.Entrypoint = shell(fmt.Sprintf("umask 0000 && mkdir -p %s && chmod 0777 %s %s && exec /docker-entrypoint.sh %s",
		strings.Join(dirs, " "), WarehouseDir, strings.Join(dirs, " "), cmd))
	svc.Volumes = vols
	return svc
}

// flinkBase is what every container of the Flink image shares.
func flinkBase(l *schemas.Lab, image string) types.ServiceConfig {
	svc := types.ServiceConfig{}
	svc.Image = image
	svc.Build = &types.BuildConfig{Context: "./flink"}
	m := env("JOB_MANAGER_RPC_ADDRESS", "jobmanager")
	for _, u := range cdcUsers(l) {
		m = fromEnv(m, u.User, u.Password)
	}
	svc.Environment = m
	if hasLakes(l) {
		svc.Volumes = []types.ServiceVolumeConfig{namedVolume(volWarehouse, WarehouseDir)}
	}
	return svc
}

// flinkClientHeap gives a Flink client JVM (SQL client, flink run, the SQL
// gateway) its heap: Flink's config.sh passes JVM_ARGS from the
// environment. The JobManager and TaskManagers take theirs from
// config.yaml instead.
func flinkClientHeap(svc *types.ServiceConfig, heap string) {
	svc.Environment["JVM_ARGS"] = str(heap)
}

func jobmanagerService(l *schemas.Lab, image string) types.ServiceConfig {
	svc := flinkBase(l, image)
	svc.Command = types.ShellCommand{"jobmanager"}
	svc.Volumes = append(svc.Volumes, namedVolume(volCheckpoints, CheckpointDir), labMount())
	svc.Ports = []types.ServicePortConfig{publish(l.Stack.Flink.UIPort, 8081)}
	return svc
}

func taskmanagerService(l *schemas.Lab, image string) types.ServiceConfig {
	svc := flinkBase(l, image)
	svc.Command = types.ShellCommand{"taskmanager"}
	svc.Volumes = append(svc.Volumes, namedVolume(volCheckpoints, CheckpointDir))
	return svc
}

func gatewayService(l *schemas.Lab, image string) types.ServiceConfig {
	svc := flinkBase(l, image)
	// The script itself, not the entrypoint's "sql-gateway" command: that
	// command came to apache/flink-docker after flink:1.20.1 was built
	// (FLINK-37635, flink-docker PR #222, April 2025), and the 1.20.1
	// entrypoint passes an unknown command through as a program to run.
	// Passed through, the script still runs as the flink user.
	svc.Command = types.ShellCommand{"/opt/flink/bin/sql-gateway.sh", "start-foreground"}
	flinkClientHeap(&svc, heap(l, "sql-gateway"))
	svc.Ports = []types.ServicePortConfig{publish(l.Stack.Flink.GatewayPort, 8083)}
	return svc
}

// flinkTool is the service that runs a step of scripts/flink-jobs.sh;
// the image's entrypoint runs it as the flink user.
func flinkTool(l *schemas.Lab, image, service, step string) types.ServiceConfig {
	svc := flinkBase(l, image)
	svc.Command = types.ShellCommand{"sh", LabMount + "/scripts/flink-jobs.sh", step}
	svc.Volumes = append(svc.Volumes, labMount())
	flinkClientHeap(&svc, heap(l, service))
	return svc
}

// labgenBase is what the services of the labgen image share.
func labgenBase(image string) types.ServiceConfig {
	svc := types.ServiceConfig{}
	svc.Image = image
	svc.Build = &types.BuildConfig{Context: "./labgen"}
	svc.Volumes = []types.ServiceVolumeConfig{labMount()}
	return svc
}

func producerService(l *schemas.Lab, image string) types.ServiceConfig {
	svc := labgenBase(image)
	flag, name, value := producerSource(l).producer(l)
	svc.Environment = env(name, value)
	svc.Entrypoint = shell(`exec labgen produce ` + LabMount + ` --` + flag + ` "$$` + name + `"`)
	return svc
}

func consoleService(l *schemas.Lab, image string) types.ServiceConfig {
	c := l.Stack.Console
	svc := labgenBase(image)
	args := fmt.Sprintf("exec labgen console %s --listen 0.0.0.0:%d", LabMount, c.Port)
	m := types.MappingWithEquals{}
	for _, d := range sources(l) {
		var flag string
		m, flag = d.console(l, m)
		args += flag
	}
	if ch := l.Stack.ClickHouse; ch != nil {
		m = fromEnv(m, "CLICKHOUSE_READER_USER", "CLICKHOUSE_READER_PASSWORD")
		args += " --clickhouse clickhouse:9000"
	}
	svc.Environment = m
	svc.Entrypoint = shell(args)
	svc.Ports = []types.ServicePortConfig{publish(c.Port, uint32(c.Port))}
	return svc
}
