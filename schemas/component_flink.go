package schemas

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// DefaultFlinkVersion is the flink image's version (its slot and memory
// facts are in flinkfacts.go).
const DefaultFlinkVersion = "1.20.1"

// Memory of the Flink JVMs besides the cluster's own. Flink's scripts
// pass JVM_ARGS to the client JVMs (SQL client, flink run) and to the SQL
// gateway; each gets a heap and caps on metaspace and code cache, and a
// limit that holds all three, the JVM's other native memory and a margin.
//
// Measured with prove/flink, which plans the seed lab's four job files
// in one JVM through the same connector jars (CDC, Kafka, JDBC, Fluss,
// Paimon, Iceberg, Hadoop), under -XX:+UseSerialGC (what the JVM picks
// in a container under 1792 MB) -Xms8m -Xmx160m: heap at most 100 MiB
// committed (47 MiB live after a collection), metaspace 91 MiB with the
// class space, code cache 19 MiB, other native memory about 65 MiB, peak
// anonymous RSS 277 MiB, which the former 288 MiB limit barely held.
var (
	// The client JVMs of tiering, the job submitter and the batch loop:
	// 128 + 128 + 48 MiB capped, 80 for the rest of the JVM, 32 for the
	// shell, curl and a margin.
	flinkToolHeap = jvmFlags(128, 128, 48)
	flinkToolMB   = 416
	// The SQL gateway lives long and plans every statement labgen sends:
	// 192 + 128 + 64 MiB capped (classes it generates are unloaded when
	// metaspace reaches its cap), 80 for the rest of the JVM, 16 of
	// margin.
	flinkGatewayHeap = jvmFlags(192, 128, 64)
	flinkGatewayMB   = 480
)

// flinkSlackMB is the entrypoint's shell and the curl health checks
// beside a Flink JVM.
const flinkSlackMB = 64

// Flink is a session cluster with a SQL gateway.
type Flink struct {
	Version            string    `json:"version"`
	Image              string    `json:"image"`
	TaskManagers       int       `json:"taskmanagers"`
	Slots              int       `json:"slots"`
	Parallelism        int       `json:"parallelism"`
	CheckpointInterval string    `json:"checkpoint_interval"`
	StateTTL           string    `json:"state_ttl"`
	StateBackend       string    `json:"state_backend"`
	Restart            Restart   `json:"restart"`
	UIPort             int       `json:"ui_port"`
	GatewayPort        int       `json:"gateway_port"`
	DeclRange          hcl.Range `json:"-"`
}

// Flink's state backends (state.backend.type): keyed state as objects on
// the TaskManager's heap, or serialized in an embedded RocksDB on its
// disk, in managed memory.
const (
	StateBackendHashMap = "hashmap"
	StateBackendRocksDB = "rocksdb"
)

// Restart is Flink's restart strategy.
type Restart struct {
	Strategy string `json:"strategy"`
	Attempts int    `json:"attempts"`
	Delay    string `json:"delay"`
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
		{Name: "taskmanager", Step: true, Needs: needs(healthy("jobmanager")),
			Memory: func(l *Lab) Memory {
				_, tm := l.Stack.FlinkMemory()
				return Memory{MB: tm + flinkSlackMB, Why: fmt.Sprintf("Flink TaskManager, taskmanager.memory.process.size %dm for %d slot(s)", tm, l.TaskSlots())}
			},
			// Healthy once the jobmanager lists this task manager (by its
			// address).
			Health: &Health{Test: test(`curl -fsS http://jobmanager:8081/taskmanagers | grep -q "[@\"]$$(hostname -i | cut -d' ' -f1):"`),
				Interval: sec(5), StartPeriod: sec(30), Retries: 24}},
		{Name: "sql-gateway", Step: true, Needs: needs(healthy("jobmanager")),
			Memory: fixed(Memory{MB: flinkGatewayMB, Heap: flinkGatewayHeap, Why: "Flink SQL gateway, JVM " + flinkGatewayHeap + "; plans the statements labgen sends"}),
			Health: httpHealth(curlGet, 8083, "/v1/info", Health{Interval: sec(5), StartPeriod: sec(30), Retries: 24})},
		{Name: "tiering", When: func(l *Lab) bool { return l.Stack.Fluss != nil },
			Needs:  needs(healthy("jobmanager"), healthy("taskmanager"), healthy("coordinator-server"), healthy("tablet-server")),
			Memory: fixed(Memory{MB: flinkToolMB, Heap: flinkToolHeap, Why: "flink run for the Fluss tiering job, JVM " + flinkToolHeap})},
		// Healthy once each streaming job has run; it checks again every
		// 30 s and submits what is missing. Checks are curl and grep;
		// only a submission starts a JVM.
		{Name: "job-submitter", Submits: true, Needs: needs(
			healthy("jobmanager"), healthy("taskmanager"), healthy("mysql"), healthy("postgres"),
			completed("kafka-init"), completed("clickhouse-init"), healthy("tablet-server"),
			// It waits for tiering to end, so that the two never start
			// the tiering job or create the lake tables at once; optional
			// because once tiering has failed for good the job submitter
			// must start anyway (its keep loop retries the tiering job),
			// or the streaming jobs stay unsubmitted (render's buildStack).
			Need{Service: "tiering", Completed: true, Optional: true}),
			Memory: fixed(Memory{MB: flinkToolMB, Heap: flinkToolHeap, Why: "checks the streaming jobs every 30 s; starts Flink's SQL client (JVM " + flinkToolHeap + ") only to submit a missing one"}),
			Health: &Health{Test: test("test -f /tmp/jobs-submitted"), Interval: sec(5), StartPeriod: 5 * time.Minute, Retries: 6}},
	},
	Images: func(l *Lab) []Image { return images("flink-base", l.Stack.Flink.Image) },
	Ports: func(s *Stack) map[string]int {
		return map[string]int{"ui": s.Flink.UIPort, "gateway": s.Flink.GatewayPort}
	},
	schema: func() *hcl.BodySchema {
		s := componentSchema("version", "image", "taskmanagers", "slots", "parallelism", "checkpoint_interval", "state_ttl", "state_backend", "ui_port", "gateway_port")
		s.Blocks = []hcl.BlockHeaderSchema{{Type: "restart"}}
		return s
	}(),
	decode: decodeFlink,
}

var restartSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "strategy"}, {Name: "attempts"}, {Name: "delay"}}}

func decodeFlink(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
	at := c.Attributes
	v := orDefault(d.version(at["version"]), DefaultFlinkVersion)
	f := &Flink{
		Version:            v,
		Image:              orDefault(d.image(at["image"]), fmt.Sprintf("flink:%s-scala_2.12-java17", v)),
		TaskManagers:       d.atLeast(at["taskmanagers"], 1, 1),
		Slots:              d.atLeast(at["slots"], 1, 4),
		CheckpointInterval: d.duration(at["checkpoint_interval"], "10s"),
		StateTTL:           d.duration(at["state_ttl"], "1h"),
		StateBackend:       d.oneOf(at["state_backend"], StateBackendHashMap, StateBackendHashMap, StateBackendRocksDB),
		UIPort:             port(d, at["ui_port"], 8081),
		GatewayPort:        port(d, at["gateway_port"], 8083),
		Restart:            Restart{Strategy: "fixed-delay", Attempts: 10, Delay: "5s"},
		DeclRange:          b.DefRange,
	}
	f.Parallelism = d.atLeast(at["parallelism"], 1, 1)
	if pa := at["parallelism"]; pa != nil && float64(f.Parallelism) > float64(f.TaskManagers)*float64(f.Slots) {
		d.errorf(pa.Expr.Range(), "Parallelism exceeds slots",
			"parallelism %d needs more slots than the %d task manager(s) × %d slot(s) provide.", f.Parallelism, f.TaskManagers, f.Slots)
	}
	for i, rb := range c.Blocks {
		if i > 0 {
			d.errorf(rb.DefRange, "Duplicate restart block", "Flink has one restart strategy, already declared at %s.", c.Blocks[0].DefRange)
			continue
		}
		rc, diags := rb.Body.Content(restartSchema)
		d.diags = append(d.diags, diags...)
		f.Restart.Strategy = d.oneOf(rc.Attributes["strategy"], f.Restart.Strategy, "fixed-delay", "exponential-delay", "none")
		f.Restart.Attempts = d.atLeast(rc.Attributes["attempts"], 0, f.Restart.Attempts)
		f.Restart.Delay = d.duration(rc.Attributes["delay"], f.Restart.Delay)
	}
	st.Flink = f
}
