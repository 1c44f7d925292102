package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// ServiceMemory is one service's memory limit (compose mem_limit) and why
// it is that size.
type ServiceMemory struct {
	Service string
	MB      int
	// OneShot services run once at start and exit.
	OneShot bool
	Why     string
}

// Memory sizes of the stack, in MiB. Every JVM gets an explicit heap, and
// each limit covers the heap plus the JVM's own memory (metaspace, code
// cache, threads, direct buffers) and what runs beside it in the
// container (health checks, the entrypoint's shell). The seed lab's
// default stack sums to at most 6 GiB, 4 GiB without the lakes: the size
// of Docker Desktop's default VM on 8–16 GB machines.
const (
	mysqlMB      = 320
	kafkaMB      = 416
	kafkaHeap    = "-Xmx160m -Xms160m"
	kafkaToolMB  = 128
	kafkaUIMB    = 256
	chMB         = 512
	chInitMB     = 128
	zkMB         = 192
	zkHeapMB     = 64
	coordMB      = 320
	tabletMB     = 448
	gatewayMB    = 320
	flinkToolMB  = 288
	labgenMB     = 64
	flinkSlackMB = 64 // the entrypoint's shell and curl health checks beside a Flink JVM
	// The Flink client JVMs (SQL client, flink run) of the one-shot
	// containers and the batch loop.
	flinkToolHeap = "-Xmx160m"
	gatewayHeap   = "-Xmx192m"
	// The SQL client a health check or a Kafka tool starts inside a
	// server's container gets a small heap of its own.
	kafkaProbeHeap = "-Xmx24m"
	kafkaToolHeap  = "-Xmx48m"
	kafkaUIHeap    = "-Xmx128m"
	coordHeap      = "-Xmx160m -Xms160m"
	tabletHeap     = "-Xmx192m -Xms192m"
)

// hasLakes tells whether the stack keeps lake tables (Fluss/Paimon or
// Iceberg) on the shared warehouse volume.
func hasLakes(l *schemas.Lab) bool { return l.Stack.Fluss != nil || l.Stack.Iceberg != nil }

// flinkMemory is the process size of the JobManager and of each
// TaskManager in MiB. Without lakes no Iceberg or Paimon writer, no
// tiering job and no bounded job runs in the TaskManager, so it is smaller.
func flinkMemory(l *schemas.Lab) (jm, tm int) {
	if hasLakes(l) {
		return 640, 1280
	}
	return 512, 896
}

// memoryPlan lists the memory of every service the stack runs, in
// serviceOrder.
func memoryPlan(l *schemas.Lab, st *stack) []ServiceMemory {
	jm, tm := flinkMemory(l)
	why := map[string]ServiceMemory{
		"mysql":              {MB: mysqlMB, Why: "MySQL 8 with its 128 MB InnoDB buffer pool; performance_schema off (it takes about 200 MB more)"},
		"postgres":           {MB: postgresMB, Why: "PostgreSQL with shared_buffers=64MB, logical decoding for the CDC slots"},
		"kafka":              {MB: kafkaMB, Why: "one KRaft broker, heap " + kafkaHeap + "; the health check's JVM (" + kafkaProbeHeap + ") runs inside it every 30 s"},
		"kafka-init":         {MB: kafkaToolMB, Why: "kafka-topics.sh, heap " + kafkaToolHeap + ""},
		"kafka-ui":           {MB: kafkaUIMB, Why: "Kafka UI (Spring Boot), heap " + kafkaUIHeap},
		"clickhouse":         {MB: chMB, Why: "clickhouse-server keeps itself to 90% of its container's limit; the lab's tables are small"},
		"clickhouse-init":    {MB: chInitMB, Why: "clickhouse-client applying the schema"},
		"zookeeper":          {MB: zkMB, Why: fmt.Sprintf("ZooKeeper for Fluss, heap %d MB; the health check asks ruok without a JVM", zkHeapMB)},
		"coordinator-server": {MB: coordMB, Why: "Fluss coordinator, heap " + coordHeap},
		"tablet-server":      {MB: tabletMB, Why: "Fluss tablet server, heap " + tabletHeap + "; RocksDB and Arrow buffers off the heap"},
		"jobmanager":         {MB: jm + flinkSlackMB, Why: fmt.Sprintf("Flink JobManager, jobmanager.memory.process.size %dm", jm)},
		"taskmanager":        {MB: tm + flinkSlackMB, Why: fmt.Sprintf("Flink TaskManager, taskmanager.memory.process.size %dm for %d slot(s)", tm, taskSlots(l))},
		"sql-gateway":        {MB: gatewayMB, Why: "Flink SQL gateway, heap " + gatewayHeap + "; plans the statements labgen sends"},
		"tiering":            {MB: flinkToolMB, Why: "flink run for the Fluss tiering job, heap " + flinkToolHeap},
		"job-submitter":      {MB: flinkToolMB, Why: "checks the streaming jobs every 30 s; starts Flink's SQL client (heap " + flinkToolHeap + ") only to submit a missing one"},
		"batch-loop":         {MB: flinkToolMB, Why: "Flink's SQL client (heap " + flinkToolHeap + ") for one bounded job at a time"},
		"producer":           {MB: labgenMB, Why: "labgen produce (Go); pending payments take bytes each"},
		"console":            {MB: labgenMB, Why: "labgen console (Go)"},
	}
	var out []ServiceMemory
	for _, name := range st.services() {
		m, ok := why[name]
		if !ok && strings.HasPrefix(name, "taskmanager-") {
			m, ok = why["taskmanager"], true
		}
		if !ok {
			continue
		}
		m.Service = name
		m.OneShot = st.oneShot[name]
		out = append(out, m)
	}
	return out
}

// memoryTotal sums the limits.
func memoryTotal(ms []ServiceMemory) int {
	n := 0
	for _, m := range ms {
		n += m.MB
	}
	return n
}

// MemoryBudget is the memory limit of each service of the lab's compose
// stack, for labgen render to print.
func MemoryBudget(l *schemas.Lab) []ServiceMemory {
	return memoryPlan(l, buildStack(l, Files{}))
}

// FormatBudget is one line: the total and the largest services.
func FormatBudget(ms []ServiceMemory) string {
	if len(ms) == 0 {
		return ""
	}
	big := append([]ServiceMemory(nil), ms...)
	sort.SliceStable(big, func(i, j int) bool { return big[i].MB > big[j].MB })
	var parts []string
	for _, m := range big[:min(4, len(big))] {
		parts = append(parts, fmt.Sprintf("%s %s", m.Service, mib(m.MB)))
	}
	return fmt.Sprintf("Memory: %s of limits over %d services (%s, …); runbook.md lists them all.", mib(memoryTotal(ms)), len(ms), strings.Join(parts, ", "))
}

// mib writes MiB as "512 MB" or "1.3 GB".
func mib(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d MB", n)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1024)
}
