package render

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// FlinkJava17Opts is the env.java.opts.all of the config.yaml Flink 1.20.1
// ships (apache/flink, flink-dist/src/main/resources/config.yaml): the
// --add-exports/--add-opens Java 17 needs. The lab's config.yaml replaces
// the image's, and every env.java.opts.* defaults to empty, so without
// these the Iceberg writer fails at each checkpoint and Fluss's Arrow
// reader fails. The native stack passes the same list to its JVMs.
var FlinkJava17Opts = []string{
	"--add-exports=java.base/sun.net.util=ALL-UNNAMED",
	"--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
	"--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
	"--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
	"--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
	"--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
	"--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
	"--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
	"--add-opens=java.base/java.lang=ALL-UNNAMED",
	"--add-opens=java.base/java.net=ALL-UNNAMED",
	"--add-opens=java.base/java.io=ALL-UNNAMED",
	"--add-opens=java.base/java.nio=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
	"--add-opens=java.base/java.text=ALL-UNNAMED",
	"--add-opens=java.base/java.time=ALL-UNNAMED",
	"--add-opens=java.base/java.util=ALL-UNNAMED",
	"--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
	"--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
	"--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
}

// Where the Flink containers keep checkpoints (a volume shared by the
// jobmanager and the task managers).
const CheckpointDir = "/checkpoints"

// flinkDockerfile builds the lab's Flink image: the pinned Flink image
// plus the connector jars, each checked against its sha256 after download.
func flinkDockerfile(l *schemas.Lab, jars []Jar) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "#"))
	fmt.Fprintf(&b, `# The Flink image of the lab, used by the jobmanager, the task managers, the
# SQL gateway and the one-shot job containers. Connector jars come from Maven
# Central; each download is checked against the sha256 in labgen.lock.
FROM %s

# curl for the downloads below and for the health checks.
RUN set -eux; \
    if ! command -v curl >/dev/null 2>&1; then \
      apt-get update; \
      apt-get install -y --no-install-recommends curl ca-certificates; \
      rm -rf /var/lib/apt/lists/*; \
    fi

WORKDIR /opt/flink
`, l.Stack.Flink.Image)
	for _, j := range jars {
		fmt.Fprintf(&b, "\n# %s\nRUN curl -fsSL --retry 5 -o %s %s \\\n && echo \"%s  %s\" | sha256sum -c - \\\n && chown flink:flink %s\n",
			j.Coordinates(), j.Path(), j.URL(), j.SHA256, j.Path(), j.Path())
	}
	dirs := strings.Join(sharedDirs(l), " ")
	shared := "Checkpoints live on a volume shared by the jobmanager and the task\n# managers"
	switch {
	case l.Stack.Fluss != nil:
		shared = "Checkpoints and the lake warehouses live on volumes shared by every Flink\n# container (and the Fluss servers)"
	case hasLakes(l):
		shared = "Checkpoints and the lake warehouse live on volumes shared by every Flink\n# container"
	}
	fmt.Fprintf(&b, `
# The lab's Flink configuration (checkpoints, restart strategy, addresses).
COPY --chown=flink:flink config.yaml /opt/flink/conf/config.yaml

# %s; the entrypoint makes them the flink
# user's before the image's own entrypoint drops to that user.
COPY entrypoint.sh /labgen-entrypoint.sh
RUN chmod 0755 /labgen-entrypoint.sh \
 && mkdir -p %s \
 && chown flink:flink %s
ENTRYPOINT ["/labgen-entrypoint.sh"]
CMD ["help"]
`, shared, dirs, dirs)
	return []byte(b.String())
}

// sharedDirs are the volumes the Flink containers share.
func sharedDirs(l *schemas.Lab) []string {
	if hasLakes(l) {
		return []string{CheckpointDir, WarehouseDir}
	}
	return []string{CheckpointDir}
}

// flinkEntrypoint runs as root when a Flink container starts.
func flinkEntrypoint(l *schemas.Lab) []byte {
	return []byte("#!/bin/sh\n" + generated(l, "#") + `# Gives the shared volumes to the flink user (a volume first mounted by
# another container belongs to root), then runs the Flink image's
# entrypoint, which drops to that user.
set -eu
if [ "$(id -u)" = 0 ]; then
	# shellcheck disable=SC2043 # one directory when the lab keeps no lakes
	for dir in ` + strings.Join(sharedDirs(l), " ") + `; do
		if [ -d "$dir" ]; then
			chown flink:flink "$dir"
		fi
	done
fi
exec /docker-entrypoint.sh "$@"
`)
}

// flinkConfig is Flink 1.20's config.yaml for every Flink container. The
// image's entrypoint still sets jobmanager.rpc.address from
// JOB_MANAGER_RPC_ADDRESS, which compose sets to the jobmanager.
func flinkConfig(l *schemas.Lab) []byte {
	f := l.Stack.Flink
	var b strings.Builder
	b.WriteString(generated(l, "#"))
	b.WriteString("# Flink configuration of the lab (Flink 1.20 config.yaml, flattened keys).\n")
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s: %v\n", k, v) }
	section := func(s string) { fmt.Fprintf(&b, "\n# %s\n", s) }

	section("Java 17 module access, as in the image's own config.yaml this file replaces (Flink 1.20.1's list).")
	kv("env.java.opts.all", strings.Join(FlinkJava17Opts, " "))

	section("Addresses: every container reaches the jobmanager by its service name.")
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
	section("Resources: sized to the container limits of compose.yaml (see the runbook's Resources). Slots: what the lab runs at once, plus one.")
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
	if len(l.AvailableJobs(schemas.ModeBatch)) > 0 {
		// Managed memory serves the bounded jobs' sorts and hash
		// aggregations; the streaming state is on the heap (hashmap).
		kv("taskmanager.memory.managed.fraction", "0.2")
	} else {
		kv("taskmanager.memory.managed.fraction", "0.1")
	}
	kv("taskmanager.numberOfTaskSlots", l.TaskSlots())
	kv("parallelism.default", f.Parallelism)
	kv("jobmanager.execution.failover-strategy", "region")

	if l.Stack.Iceberg != nil {
		section("Checkpoints on the volume shared by the jobmanager and the task managers. Without them the CDC sources never leave their snapshot phase and Iceberg never commits.")
	} else {
		section("Checkpoints on the volume shared by the jobmanager and the task managers. Without them the CDC sources never leave their snapshot phase.")
	}
	kv("execution.checkpointing.interval", flinkDuration(f.CheckpointInterval))
	kv("execution.checkpointing.mode", "EXACTLY_ONCE")
	kv("execution.checkpointing.storage", "filesystem")
	kv("execution.checkpointing.dir", "file://"+CheckpointDir)
	kv("execution.checkpointing.savepoint-dir", "file://"+CheckpointDir+"/savepoints")
	kv("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION")
	kv("state.backend.type", "hashmap")

	section("Restart strategy of the lab.")
	r := f.Restart
	switch r.Strategy {
	case "none":
		kv("restart-strategy.type", "none")
	case "exponential-delay":
		kv("restart-strategy.type", "exponential-delay")
		kv("restart-strategy.exponential-delay.initial-backoff", flinkDuration(r.Delay))
		kv("restart-strategy.exponential-delay.attempts-before-reset-backoff", r.Attempts)
	default:
		kv("restart-strategy.type", "fixed-delay")
		kv("restart-strategy.fixed-delay.attempts", r.Attempts)
		kv("restart-strategy.fixed-delay.delay", flinkDuration(r.Delay))
	}

	section("Connector jars share Flink's class loader; do not fail jobs over leaked class loaders on shutdown.")
	kv("classloader.check-leaked-classloader", "false")
	return []byte(b.String())
}
