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
	return []byte(generated(l, "#") + "# Flink configuration of the lab (Flink 1.20 config.yaml, flattened keys).\n" + string(FlinkSettings(l).YAML()))
}
