package render

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// Setting is one key of an engine's configuration. Value keeps its Go
// type (string, int, bool) for the faces that write typed YAML (Strimzi);
// files write it with fmt.Sprint. Why is the comment of the group it
// belongs to in a rendered file ("" for none).
type Setting struct {
	Key   string
	Value any
	Why   string
}

// Text is the value as a configuration file writes it.
func (x Setting) Text() string { return fmt.Sprint(x.Value) }

// Settings is an engine's configuration in the order its file lists it.
// Each engine's settings come from one function of the lab (FlinkSettings,
// FlussSettings); compose writes them as they are, and the native stack and
// the Kubernetes face change keys on this data, never on a rendered file.
type Settings []Setting

// Value is key's value.
func (s Settings) Value(key string) (any, bool) {
	for _, x := range s {
		if x.Key == key {
			return x.Value, true
		}
	}
	return nil, false
}

// Set gives key value where it stands, or appends it under why if s lacks
// it. s is not changed.
func (s Settings) Set(key string, value any, why string) Settings {
	out := append(Settings(nil), s...)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = value
			return out
		}
	}
	return append(out, Setting{Key: key, Value: value, Why: why})
}

// Without drops keys.
func (s Settings) Without(keys ...string) Settings {
	var out Settings
	for _, x := range s {
		drop := false
		for _, k := range keys {
			drop = drop || x.Key == k
		}
		if !drop {
			out = append(out, x)
		}
	}
	return out
}

// Map is s keyed by name, each value as a file writes it.
func (s Settings) Map() map[string]string {
	m := make(map[string]string, len(s))
	for _, x := range s {
		m[x.Key] = x.Text()
	}
	return m
}

// With is s with each of over's keys set (Set), a key s lacks appended
// under why.
func (s Settings) With(over Settings, why string) Settings {
	for _, o := range over {
		s = s.Set(o.Key, o.Value, why)
	}
	return s
}

// YAML writes s as flat "key: value" lines, each group led by a blank line
// and its Why as a comment (Flink's config.yaml, Fluss's server.yaml).
func (s Settings) YAML() []byte { return s.lines(": ") }

// Properties writes s as "key=value" lines (Java properties), grouped as
// YAML groups them.
func (s Settings) Properties() []byte { return s.lines("=") }

func (s Settings) lines(sep string) []byte {
	var b strings.Builder
	why := ""
	for _, x := range s {
		if x.Why != why && x.Why != "" {
			fmt.Fprintf(&b, "\n# %s\n", x.Why)
		}
		why = x.Why
		fmt.Fprintf(&b, "%s%s%v\n", x.Key, sep, x.Value)
	}
	return []byte(b.String())
}

// FlinkSettings is the lab's Flink 1.20 configuration (flattened keys) for
// every Flink container of compose: its addresses are compose's service
// names, its directories the shared volumes'.
func FlinkSettings(l *schemas.Lab) Settings {
	f := l.Stack.Flink
	var s Settings
	why := ""
	kv := func(k string, v any) { s = append(s, Setting{Key: k, Value: v, Why: why}) }

	why = "Java 17 module access, as in the image's own config.yaml this file replaces (Flink 1.20.1's list)."
	kv("env.java.opts.all", strings.Join(FlinkJava17Opts, " "))

	why = "Addresses: every container reaches the jobmanager by its service name."
	kv("jobmanager.rpc.address", "jobmanager")
	kv("jobmanager.rpc.port", 6123)
	kv("jobmanager.bind-host", "0.0.0.0")
	kv("taskmanager.bind-host", "0.0.0.0")
	kv("rest.address", "jobmanager")
	kv("rest.port", 8081)
	kv("rest.bind-address", "0.0.0.0")
	kv("blob.server.port", 6124)
	kv("query.server.port", 6125)
	kv("sql-gateway.endpoint.rest.address", "sql-gateway")
	kv("sql-gateway.endpoint.rest.bind-address", "0.0.0.0")
	kv("sql-gateway.endpoint.rest.port", 8083)

	jm, tm := l.Stack.FlinkMemory()
	why = "Resources: sized to the container limits of compose.yaml (see the runbook's Resources). Slots: what the lab runs at once, plus one."
	kv("jobmanager.memory.process.size", fmt.Sprintf("%dm", jm))
	kv("jobmanager.memory.jvm-metaspace.size", "160m")
	kv("jobmanager.memory.jvm-overhead.min", "64m")
	kv("taskmanager.memory.process.size", fmt.Sprintf("%dm", tm))
	kv("taskmanager.memory.jvm-metaspace.size", fmt.Sprintf("%dm", schemas.TaskManagerMetaspaceMB))
	kv("taskmanager.memory.jvm-overhead.min", "96m")
	if l.Stack.Fluss != nil {
		// Fluss's Arrow buffers are direct memory.
		kv("taskmanager.memory.task.off-heap.size", "128m")
	}
	switch {
	case f.StateBackend == schemas.StateBackendRocksDB:
		// RocksDB keeps its block cache and write buffers in managed
		// memory, each slot's share; Flink's default fraction is sized for
		// it, and the state leaves the heap.
		kv("taskmanager.memory.managed.fraction", "0.4")
	case len(l.AvailableJobs(schemas.ModeBatch)) > 0:
		// Managed memory serves the bounded jobs' sorts and hash
		// aggregations; the streaming state is on the heap (hashmap).
		kv("taskmanager.memory.managed.fraction", "0.2")
	default:
		kv("taskmanager.memory.managed.fraction", "0.1")
	}
	kv("taskmanager.numberOfTaskSlots", l.TaskSlots())
	kv("parallelism.default", f.Parallelism)
	kv("jobmanager.execution.failover-strategy", "region")

	why = "Checkpoints on the volume shared by the jobmanager and the task managers. Without them the CDC sources never leave their snapshot phase."
	// The lakes Flink writes itself commit on checkpoints.
	var commits []string
	for _, k := range schemas.LakeKinds() {
		if k.Lake.OwnWarehouse && l.Stack.Has(k.Component) {
			commits = append(commits, k.Title)
		}
	}
	switch len(commits) {
	case 0:
	case 1:
		why = strings.TrimSuffix(why, ".") + " and " + commits[0] + " never commits."
	default:
		why = strings.TrimSuffix(why, ".") + " and " + strings.Join(commits, " and ") + " never commit."
	}
	kv("execution.checkpointing.interval", schemas.FlinkDuration(f.CheckpointInterval))
	kv("execution.checkpointing.mode", "EXACTLY_ONCE")
	kv("execution.checkpointing.storage", "filesystem")
	kv("execution.checkpointing.dir", "file://"+CheckpointDir)
	kv("execution.checkpointing.savepoint-dir", "file://"+CheckpointDir+"/savepoints")
	kv("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION")
	kv("state.backend.type", f.StateBackend)
	if f.StateBackend == schemas.StateBackendRocksDB {
		// Each checkpoint uploads only the SST files RocksDB wrote since
		// the last one, not the whole state.
		kv("state.backend.incremental", true)
	}

	why = "Restart strategy of the lab."
	r := f.Restart
	switch r.Strategy {
	case "none":
		kv("restart-strategy.type", "none")
	case "exponential-delay":
		kv("restart-strategy.type", "exponential-delay")
		kv("restart-strategy.exponential-delay.initial-backoff", schemas.FlinkDuration(r.Delay))
		kv("restart-strategy.exponential-delay.attempts-before-reset-backoff", r.Attempts)
	default:
		kv("restart-strategy.type", "fixed-delay")
		kv("restart-strategy.fixed-delay.attempts", r.Attempts)
		kv("restart-strategy.fixed-delay.delay", schemas.FlinkDuration(r.Delay))
	}

	why = "The REST API's metrics (backpressure, busy time, records) refresh every 5 s, as often as the lab's steps sample them; Flink's default is every 10 s."
	kv("metrics.fetcher.update-interval", 5000)

	why = "Connector jars share Flink's class loader; do not fail jobs over leaked class loaders on shutdown."
	kv("classloader.check-leaked-classloader", "false")
	return s
}

// FlussServerID is the key that numbers a tablet server.
const FlussServerID = "tablet-server.id"

// FlussSettings is the server.yaml of compose's Fluss server (the
// coordinator-server or the tablet-server), which compose passes as
// FLUSS_PROPERTIES.
func FlussSettings(l *schemas.Lab, server string) Settings {
	f := l.Stack.Fluss
	s := Settings{
		{Key: "zookeeper.address", Value: "zookeeper:2181"},
		{Key: "bind.listeners", Value: "FLUSS://" + server + ":9123"},
		{Key: "remote.data.dir", Value: ComposeFace.FlussRemote()},
		{Key: "datalake.format", Value: f.Lake},
		{Key: "datalake." + f.Lake + ".metastore", Value: "filesystem"},
		{Key: "datalake." + f.Lake + ".warehouse", Value: ComposeFace.PaimonWarehouse()},
	}
	if server == "tablet-server" {
		s = append(s, Setting{Key: FlussServerID, Value: "0"}, Setting{Key: "data.dir", Value: flussDataDir})
	}
	return s
}

// KafkaSettings are the broker properties of compose's kafka, one KRaft
// node (broker and controller). Containers use kafka:19092; the host uses
// 127.0.0.1:<port>: the port is published on 127.0.0.1 only, and
// localhost may resolve to ::1 first, where nothing listens.
func KafkaSettings(l *schemas.Lab) Settings {
	return Settings{
		{Key: "node.id", Value: 1},
		{Key: "process.roles", Value: "broker,controller"},
		{Key: "listeners", Value: "INTERNAL://0.0.0.0:19092,HOST://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093"},
		{Key: "advertised.listeners", Value: fmt.Sprintf("INTERNAL://%s,HOST://127.0.0.1:%d", KafkaInternal, l.Stack.Kafka.Port)},
		{Key: "listener.security.protocol.map", Value: "INTERNAL:PLAINTEXT,HOST:PLAINTEXT,CONTROLLER:PLAINTEXT"},
		{Key: "inter.broker.listener.name", Value: "INTERNAL"},
		{Key: "controller.listener.names", Value: "CONTROLLER"},
		{Key: "controller.quorum.voters", Value: "1@kafka:9093"},
		{Key: "log.dirs", Value: kafkaDataDir},
		{Key: "num.partitions", Value: 1},
		{Key: "auto.create.topics.enable", Value: false},
		{Key: "offsets.topic.replication.factor", Value: 1},
		{Key: "transaction.state.log.replication.factor", Value: 1},
		{Key: "transaction.state.log.min.isr", Value: 1},
		{Key: "share.coordinator.state.topic.replication.factor", Value: 1},
		{Key: "share.coordinator.state.topic.min.isr", Value: 1},
		{Key: "group.initial.rebalance.delay.ms", Value: 0},
	}
}

// kafkaDataDir is the broker's log directory, on the kafka volume.
const kafkaDataDir = "/var/lib/kafka/data"

// kafkaEnvName is the apache/kafka image's variable for a broker
// property: its configure step turns KAFKA_A_B back into a.b ("_" is
// "__", "-" is "___").
func kafkaEnvName(key string) string {
	return "KAFKA_" + strings.ToUpper(strings.NewReplacer("_", "__", "-", "___", ".", "_").Replace(key))
}
