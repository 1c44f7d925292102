package schemas

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// ComponentDesc is one component of the stack, described once: its
// stack block, the compose services it runs (in the order every listing
// uses, each with its memory budget and health check), the images it
// pulls and the host ports it publishes. schemas (Has, Services, which
// component a service needs), render (the order of compose's services,
// their mem_limit and health checks, the lock's and lab.json's images)
// and the runtime (the record's images, endpoints, the native stack's
// ports and probes) read it instead of knowing the components themselves.
type ComponentDesc struct {
	// Name is its stack block ("mysql", "kafka_ui"); empty for what is
	// not a block of its own (the producer, labgen's image).
	Name string
	// Title names it for people.
	Title string
	// Present tells whether the stack runs it.
	Present func(*Stack) bool
	// Services are the compose services it may run, in order.
	Services []ServiceDesc
	// Images are the images it pulls or builds on, when it runs.
	Images func(*Lab) []Image
	// Ports are the host ports it publishes on 127.0.0.1, by name, when
	// it runs.
	Ports func(*Stack) map[string]int
	// decode reads its stack block into the Stack (components older than
	// the registry are still decoded by decodeComponent's switch).
	decode func(d *decoder, st *Stack, b *hcl.Block, at hcl.Attributes)
	// schema is its stack block's body, with decode.
	schema *hcl.BodySchema
}

// ServiceDesc is a compose service of a component.
type ServiceDesc struct {
	Name string
	// Step tells that a compose step may name it (it runs for as long as
	// the stack does; one-shot helpers such as kafka-init do not).
	Step bool
	// When, if set, is what else the service needs besides its
	// component.
	When func(*Lab) bool
	// Component is the block that must be in the stack for the service
	// to run (the producer's: mysql); empty means its own component's.
	Component string
	// Memory is its memory limit in the compose stack and why it is that
	// size.
	Memory func(*Lab) Memory
	// Health is its compose health check; nil for one-shot services,
	// which exit instead.
	Health *Health
	// Submits tells that it submits the lab's Flink jobs when it starts:
	// labgen run starts it only after the engines have checked them.
	Submits bool
}

// Memory is a service's memory limit (compose mem_limit) in MiB. Every
// JVM gets an explicit heap, and each limit covers the heap plus the
// JVM's own memory (metaspace, code cache, threads, direct buffers) and
// what runs beside it in the container (health checks, the entrypoint's
// shell). The seed lab's default stack sums to at most 6 GiB, 4 GiB
// without the lakes: the size of Docker Desktop's default VM on 8–16 GB
// machines.
type Memory struct {
	MB int
	// Heap is the JVM's heap flags, for a JVM labgen sizes through its
	// environment ("" otherwise).
	Heap string
	// Why says what the limit covers, for the runbook.
	Why string
}

// fixed is a memory budget that does not depend on the lab.
func fixed(m Memory) func(*Lab) Memory { return func(*Lab) Memory { return m } }

// Health is a service's health check: compose runs Test in the container
// (CMD-SHELL; the container's own variables written $$NAME so that
// compose leaves them alone) every Interval, and gives up after Retries
// failures once StartPeriod has passed.
type Health struct {
	Test        func(*Lab) string
	Interval    time.Duration
	StartPeriod time.Duration
	Retries     uint64
	// HTTP, when the check is a GET of a path on the service's own HTTP
	// port, is that path; the native stack's probe asks the same one.
	HTTP string
}

func test(cmd string) func(*Lab) string { return func(*Lab) string { return cmd } }

// The health checks that GET a path on the container's own port, with
// the HTTP client its image has: the path is named once, for compose's
// test and the native stack's probe.
func wgetGet(port int, path string) string {
	return fmt.Sprintf("wget -q -O /dev/null http://127.0.0.1:%d%s", port, path)
}

func curlGet(port int, path string) string {
	return fmt.Sprintf("curl -fsS -o /dev/null http://127.0.0.1:%d%s", port, path)
}

// httpHealth checks with get(port, path) and has the native probe ask
// the same path.
func httpHealth(get func(int, string) string, port int, path string, h Health) *Health {
	h.Test, h.HTTP = test(get(port, path)), path
	return &h
}

// Service is the description of a compose service, or nil. A numbered
// TaskManager (taskmanager-2, …) is described by taskmanager.
func Service(name string) *ServiceDesc {
	for _, c := range ComponentRegistry {
		for i := range c.Services {
			if c.Services[i].Name == name {
				return &c.Services[i]
			}
		}
	}
	if base, n, ok := cutLastDash(name); ok && base == "taskmanager" && n > 1 {
		return Service(base)
	}
	return nil
}

func cutLastDash(s string) (string, int, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '-' {
			n, err := strconv.Atoi(s[i+1:])
			return s[:i], n, err == nil
		}
	}
	return "", 0, false
}

// HealthPath is the HTTP path a service's health check asks ("" when its
// check is no plain GET).
func HealthPath(service string) string {
	if s := Service(service); s != nil && s.Health != nil {
		return s.Health.HTTP
	}
	return ""
}

// Image is an image the stack pulls, or builds on.
type Image struct {
	// Role says what it is for: a service's name, or flink-base,
	// labgen-build, labgen-runtime for the bases of the built images.
	Role string `json:"role"`
	Ref  string `json:"ref"`
}

// ComponentRegistry lists every component in the order of the stack's
// services; each adds its own entry (components_*.go).
var ComponentRegistry = []*ComponentDesc{
	mysqlComponent, postgresComponent, kafkaComponent, kafkaUIComponent, clickhouseComponent, flussComponent,
	flinkComponent, icebergComponent, producerComponent, consoleComponent, batchLoopComponent,
}

// Components are the stack's blocks (see ComponentRegistry).
var Components = func() []string {
	var out []string
	for _, c := range ComponentRegistry {
		if c.Name != "" {
			out = append(out, c.Name)
		}
	}
	return out
}()

// Component is the description of a stack block, or nil.
func Component(name string) *ComponentDesc {
	for _, c := range ComponentRegistry {
		if c.Name == name && name != "" {
			return c
		}
	}
	return nil
}

// Has tells whether the stack runs a component (see Components).
func (s *Stack) Has(component string) bool {
	c := Component(component)
	return c != nil && c.Present(s)
}

// ServiceOrder lists every compose service a stack may run, in the order
// listings use (compose.yaml itself sorts them by name).
func ServiceOrder() []string {
	var out []string
	for _, c := range ComponentRegistry {
		for _, s := range c.Services {
			out = append(out, s.Name)
		}
	}
	return out
}

// Services are the compose services the stack runs, which compose steps
// may name. The producer runs when the lab has producers.
func (l *Lab) Services() []string {
	var out []string
	for _, c := range ComponentRegistry {
		if !c.Present(l.Stack) {
			continue
		}
		for _, s := range c.Services {
			if s.Step && (s.When == nil || s.When(l)) {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// Submitters are the compose services that submit the lab's Flink jobs
// when they start.
func Submitters() []string {
	var out []string
	for _, c := range ComponentRegistry {
		for _, s := range c.Services {
			if s.Submits {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// ServiceComponent is the stack block a compose service needs ("" when
// no component runs it).
func ServiceComponent(service string) string {
	for _, c := range ComponentRegistry {
		for _, s := range c.Services {
			if s.Name != service {
				continue
			}
			if s.Component != "" {
				return s.Component
			}
			return c.Name
		}
	}
	return ""
}

// StackImages are the images of the stack's components in the registry's
// order (render adds the bases of the images it builds for labgen's own
// services and writes them all into lab.json's stack.images).
func (l *Lab) StackImages() []Image {
	var out []Image
	for _, c := range ComponentRegistry {
		if c.Images != nil && c.Present(l.Stack) {
			for _, im := range c.Images(l) {
				if im.Ref != "" {
					out = append(out, im)
				}
			}
		}
	}
	return out
}

// Port is a host port a component publishes (0 when the stack does not
// run it).
func (s *Stack) Port(component, name string) int {
	c := Component(component)
	if c == nil || c.Ports == nil || !c.Present(s) {
		return 0
	}
	return c.Ports(s)[name]
}

// producerRuns tells whether the lab's producer runs: it has producers,
// and a store to write them to.
func producerRuns(l *Lab) bool { return len(l.Producers) > 0 && l.SourceStore() != "" }

func always(*Stack) bool { return true }

// ProducerRuns tells whether the lab's producer runs.
func (l *Lab) ProducerRuns() bool { return producerRuns(l) }

func images(pairs ...string) []Image {
	var out []Image
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Image{Role: pairs[i], Ref: pairs[i+1]})
	}
	return out
}

// KafkaInternal is Kafka's listener on the compose network, which the
// other containers use.
const KafkaInternal = "kafka:19092"

// Heaps and memory the registry's services share.
const (
	// ZooKeeperHeapMB is ZooKeeper's heap (zkEnv.sh's ZK_SERVER_HEAP).
	ZooKeeperHeapMB = 64
	// The Flink client JVMs (SQL client, flink run) of the one-shot
	// containers and the batch loop.
	flinkToolHeap = "-Xmx160m"
	flinkToolMB   = 288
	// The entrypoint's shell and curl health checks beside a Flink JVM.
	flinkSlackMB = 64
	labgenMB     = 64
	// The Kafka tool a health check starts inside the broker's container
	// gets a small heap of its own.
	kafkaProbeHeap = "-Xmx24m"
)

// sec is a number of seconds, for the health checks' intervals.
func sec(n int) time.Duration { return time.Duration(n) * time.Second }

var mysqlComponent = &ComponentDesc{
	Name: "mysql", Title: "MySQL",
	Present: func(s *Stack) bool { return s.MySQL != nil },
	Services: []ServiceDesc{{Name: "mysql", Step: true,
		Memory: fixed(Memory{MB: 320, Why: "MySQL 8 with its 128 MB InnoDB buffer pool; performance_schema off (it takes about 200 MB more)"}),
		// It reads a table the init scripts create, as the reader user
		// they create, over TCP: the temporary server of the first start
		// listens on the socket only.
		Health: &Health{Test: func(l *Lab) string {
			probe := "SELECT 1"
			for _, t := range l.Tables {
				if st := t.Store(StoreMySQL); st != nil {
					probe = fmt.Sprintf("SELECT 1 FROM %s.%s LIMIT 1", l.Stack.MySQL.Database, st.Name)
					break
				}
			}
			return fmt.Sprintf(`MYSQL_PWD="$$MYSQL_READER_PASSWORD" mysql --protocol=TCP -h 127.0.0.1 -u "$$MYSQL_READER_USER" -e "%s" >/dev/null`, probe)
		}, Interval: sec(5), StartPeriod: sec(60), Retries: 30},
	}},
	Images: func(l *Lab) []Image { return images("mysql", l.Stack.MySQL.Image) },
	Ports:  func(s *Stack) map[string]int { return map[string]int{"mysql": s.MySQL.Port} },
}

var kafkaComponent = &ComponentDesc{
	Name: "kafka", Title: "Kafka",
	Present: func(s *Stack) bool { return s.Kafka != nil },
	Services: []ServiceDesc{
		{Name: "kafka", Step: true,
			Memory: fixed(Memory{MB: 416, Heap: "-Xmx160m -Xms160m",
				Why: "one KRaft broker, heap -Xmx160m -Xms160m; the health check's JVM (" + kafkaProbeHeap + ") runs inside it every 30 s"}),
			// The probe is a JVM of its own, inside the broker's memory
			// limit: a small heap, and at most one every 30 s.
			Health: &Health{Test: test("KAFKA_HEAP_OPTS='" + kafkaProbeHeap + "' /opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server " + KafkaInternal + " >/dev/null 2>&1"),
				Interval: sec(30), StartPeriod: sec(20), Retries: 10}},
		{Name: "kafka-init",
			Memory: fixed(Memory{MB: 128, Heap: "-Xmx48m", Why: "kafka-topics.sh, heap -Xmx48m"})},
	},
	Images: func(l *Lab) []Image { return images("kafka", l.Stack.Kafka.Image) },
	Ports:  func(s *Stack) map[string]int { return map[string]int{"kafka": s.Kafka.Port} },
}

var kafkaUIComponent = &ComponentDesc{
	Name: "kafka_ui", Title: "Kafka UI",
	// Kafka UI shows Kafka: without it, it does not run.
	Present: func(s *Stack) bool { return s.KafkaUI != nil && s.Kafka != nil },
	Services: []ServiceDesc{{Name: "kafka-ui", Step: true,
		Memory: fixed(Memory{MB: 256, Heap: "-Xmx128m", Why: "Kafka UI (Spring Boot), heap -Xmx128m"}),
		Health: httpHealth(wgetGet, 8080, "/actuator/health", Health{Interval: sec(10), StartPeriod: sec(30), Retries: 18})}},
	Images: func(l *Lab) []Image { return images("kafka-ui", l.Stack.KafkaUI.Image) },
	Ports:  func(s *Stack) map[string]int { return map[string]int{"ui": s.KafkaUI.Port} },
}

var clickhouseComponent = &ComponentDesc{
	Name: "clickhouse", Title: "ClickHouse",
	Present: func(s *Stack) bool { return s.ClickHouse != nil },
	Services: []ServiceDesc{
		{Name: "clickhouse", Step: true,
			Memory: fixed(Memory{MB: 512, Why: "clickhouse-server keeps itself to 90% of its container's limit; the lab's tables are small"}),
			// /ping with whichever HTTP client the image has, else a
			// native query.
			Health: &Health{Test: test(wgetGet(8123, "/ping") + " || " + curlGet(8123, "/ping") + ` || clickhouse-client --user "$$CLICKHOUSE_USER" --password "$$CLICKHOUSE_PASSWORD" --query "SELECT 1" >/dev/null`),
				Interval: sec(5), StartPeriod: sec(20), Retries: 24, HTTP: "/ping"}},
		{Name: "clickhouse-init",
			Memory: fixed(Memory{MB: 128, Why: "clickhouse-client applying the schema"})},
	},
	Images: func(l *Lab) []Image { return images("clickhouse", l.Stack.ClickHouse.Image) },
	Ports: func(s *Stack) map[string]int {
		return map[string]int{"http": s.ClickHouse.HTTPPort, "tcp": s.ClickHouse.TCPPort}
	},
}

// flussServer is a Fluss server's health: its RPC port accepts a
// connection.
func flussServer(name string) *Health {
	return &Health{Test: test(fmt.Sprintf(`bash -c "exec 3<>/dev/tcp/%s/9123"`, name)), Interval: sec(5), StartPeriod: sec(20), Retries: 24}
}

var flussComponent = &ComponentDesc{
	Name: "fluss", Title: "Fluss",
	Present: func(s *Stack) bool { return s.Fluss != nil },
	Services: []ServiceDesc{
		{Name: "zookeeper", Step: true,
			Memory: fixed(Memory{MB: 192, Why: fmt.Sprintf("ZooKeeper for Fluss, heap %d MB; the health check asks ruok without a JVM", ZooKeeperHeapMB)}),
			// ruok over bash's /dev/tcp: zkServer.sh status would start a JVM.
			Health: &Health{Test: test(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/2181 && printf ruok >&3 && read -r -t 5 reply <&3; [ "$$reply" = imok ]'`),
				Interval: sec(5), StartPeriod: sec(20), Retries: 24}},
		{Name: "coordinator-server", Step: true,
			Memory: fixed(Memory{MB: 320, Heap: "-Xmx160m -Xms160m", Why: "Fluss coordinator, heap -Xmx160m -Xms160m"}),
			Health: flussServer("coordinator-server")},
		{Name: "tablet-server", Step: true,
			Memory: fixed(Memory{MB: 448, Heap: "-Xmx192m -Xms192m", Why: "Fluss tablet server, heap -Xmx192m -Xms192m; RocksDB and Arrow buffers off the heap"}),
			Health: flussServer("tablet-server")},
	},
	Images: func(l *Lab) []Image {
		return images("zookeeper", "zookeeper:"+l.Stack.Fluss.ZooKeeperVersion, "fluss", l.Stack.Fluss.Image)
	},
}

var flinkComponent = &ComponentDesc{
	Name: "flink", Title: "Flink",
	Present: func(s *Stack) bool { return s.Flink != nil },
	// tiering runs Fluss's tiering job on Flink; job-submitter submits
	// the lab's streaming jobs.
	Services: []ServiceDesc{
		{Name: "jobmanager", Step: true,
			Memory: func(l *Lab) Memory {
				jm, _ := l.Stack.FlinkMemory()
				return Memory{MB: jm + flinkSlackMB, Why: fmt.Sprintf("Flink JobManager, jobmanager.memory.process.size %dm", jm)}
			},
			Health: httpHealth(curlGet, 8081, "/overview", Health{Interval: sec(5), StartPeriod: sec(30), Retries: 24})},
		{Name: "taskmanager", Step: true,
			Memory: func(l *Lab) Memory {
				_, tm := l.Stack.FlinkMemory()
				return Memory{MB: tm + flinkSlackMB, Why: fmt.Sprintf("Flink TaskManager, taskmanager.memory.process.size %dm for %d slot(s)", tm, l.TaskSlots())}
			},
			// Healthy once the jobmanager lists this task manager (by its
			// address).
			Health: &Health{Test: test(`curl -fsS http://jobmanager:8081/taskmanagers | grep -q "[@\"]$$(hostname -i | cut -d' ' -f1):"`),
				Interval: sec(5), StartPeriod: sec(30), Retries: 24}},
		{Name: "sql-gateway", Step: true,
			Memory: fixed(Memory{MB: 320, Heap: "-Xmx192m", Why: "Flink SQL gateway, heap -Xmx192m; plans the statements labgen sends"}),
			Health: httpHealth(curlGet, 8083, "/v1/info", Health{Interval: sec(5), StartPeriod: sec(30), Retries: 24})},
		{Name: "tiering",
			Memory: fixed(Memory{MB: flinkToolMB, Heap: flinkToolHeap, Why: "flink run for the Fluss tiering job, heap " + flinkToolHeap})},
		// Healthy once each streaming job has run; it checks again every
		// 30 s and submits what is missing. Checks are curl and grep;
		// only a submission starts a JVM.
		{Name: "job-submitter", Submits: true,
			Memory: fixed(Memory{MB: flinkToolMB, Heap: flinkToolHeap, Why: "checks the streaming jobs every 30 s; starts Flink's SQL client (heap " + flinkToolHeap + ") only to submit a missing one"}),
			Health: &Health{Test: test("test -f /tmp/jobs-submitted"), Interval: sec(5), StartPeriod: 5 * time.Minute, Retries: 6}},
	},
	Images: func(l *Lab) []Image { return images("flink-base", l.Stack.Flink.Image) },
	Ports: func(s *Stack) map[string]int {
		return map[string]int{"ui": s.Flink.UIPort, "gateway": s.Flink.GatewayPort}
	},
}

var icebergComponent = &ComponentDesc{
	Name: "iceberg", Title: "Iceberg",
	Present: func(s *Stack) bool { return s.Iceberg != nil },
}

var producerComponent = &ComponentDesc{
	Title:   "producer",
	Present: always,
	Services: []ServiceDesc{{Name: "producer", Step: true, When: producerRuns, Component: "mysql",
		Memory: fixed(Memory{MB: labgenMB, Why: "labgen produce (Go); pending payments take bytes each"}),
		// It serves nothing: healthy while its process lives.
		Health: &Health{Test: test("kill -0 1"), Interval: sec(30), StartPeriod: sec(10), Retries: 3}}},
}

var consoleComponent = &ComponentDesc{
	Name: "console", Title: "query console",
	Present: func(s *Stack) bool { return s.Console != nil },
	Services: []ServiceDesc{{Name: "console", Step: true,
		Memory: fixed(Memory{MB: labgenMB, Why: "labgen console (Go)"}),
		Health: &Health{Test: func(l *Lab) string {
			return wgetGet(l.Stack.Console.Port, "/")
		}, Interval: sec(10), StartPeriod: sec(10), Retries: 12, HTTP: "/"}}},
	Ports: func(s *Stack) map[string]int { return map[string]int{"console": s.Console.Port} },
}

var batchLoopComponent = &ComponentDesc{
	Name: "batch_loop", Title: "batch loop",
	Present: func(s *Stack) bool { return s.BatchLoop != nil },
	Services: []ServiceDesc{{Name: "batch-loop", Step: true, Submits: true,
		When:   func(l *Lab) bool { return l.Stack.Flink != nil },
		Memory: fixed(Memory{MB: flinkToolMB, Heap: flinkToolHeap, Why: "Flink's SQL client (heap " + flinkToolHeap + ") for one bounded job at a time"}),
		Health: &Health{Test: test("test -f /tmp/batch-loop.alive && curl -fsS -o /dev/null http://jobmanager:8081/overview"),
			Interval: sec(30), StartPeriod: sec(30), Retries: 10}}},
}
