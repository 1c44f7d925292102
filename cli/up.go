package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/labgen/labgen/runtime/compose"
	"github.com/labgen/labgen/runtime/labdir"
)

func init() {
	register(&command{
		name:    "up",
		args:    "OUT [--native | --kubernetes [--dry-run] [--kubectl PATH]] [--build] [--timeout DURATION]",
		summary: "start a rendered lab's services and wait until they are healthy",
		help: `
Runs docker compose up --detach in the rendered lab directory OUT and waits
until every service is healthy (one-shot services such as kafka-init and
job-submitter: until they exit 0), printing each service's state as it
changes. A service that exits with an error or turns unhealthy ends the
wait with its last log lines.

Docker with the compose plugin is needed; without it labgen says so in one
sentence and exits 3.

With --native there is no Docker: each service runs as a local process on
127.0.0.1 (MariaDB for MySQL, ClickHouse through chdb, Flink, Kafka,
ZooKeeper and Fluss from Maven Central's jars), supervised in the
background, with its state, logs and configuration under OUT/.native/.
The first start downloads what the engines need (about 1.5 GB: Maven jars
checked against labgen.lock, a Python virtualenv for chdb) into
~/.cache/labgen and ~/.m2; later starts take well under a minute. It needs
java 17 or later, mvn, python3 with venv, and mariadb-server (postgresql for a
lab whose source is PostgreSQL); labgen says which one is missing. Then the lab's streaming jobs are submitted, as compose's
job-submitter does. labgen down OUT stops it all.

With --kubernetes the lab's Kubernetes base (labgen render --target
kubernetes) is applied with kubectl to the cluster of its current context,
server-side with strict field validation, after its namespace is created;
then labgen waits until every StatefulSet, Deployment and Job, the Kafka
cluster and every FlinkDeployment is ready, printing each change. The
Strimzi and Flink Kubernetes operators must run there (see the README).
--dry-run only has the cluster check the lab (a server-side dry run).

Examples:
  labgen up out/orders
  labgen up out/orders --kubernetes --timeout 20m
  labgen up out/orders --build --timeout 15m
  labgen up out/orders --native`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			build := fs.Bool("build", false, "build the lab's images first (docker compose up --build)")
			nat := fs.Bool("native", false, "run the services as local processes instead of Docker containers")
			timeout := fs.Duration("timeout", 10*time.Minute, "give up waiting for health after `DURATION`")
			k8s := fs.Bool("kubernetes", false, "apply the lab's Kubernetes base with kubectl and wait until it is ready")
			dryRun := fs.Bool("dry-run", false, "with --kubernetes: have the cluster check the lab, create nothing")
			kubectl := fs.String("kubectl", "", "with --kubernetes: the kubectl `PATH` (default: kubectl from PATH)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("up takes one rendered lab directory")
				}
				if *k8s && *nat {
					return usagef("--kubernetes and --native exclude each other")
				}
				if *dryRun && !*k8s {
					return usagef("--dry-run goes with --kubernetes")
				}
				f := chooseFace(args[0], *nat, *k8s, *kubectl, composeUnlessFlagged)
				return f.Up(ctx, env, upOptions{build: *build, timeout: *timeout, dryRun: *dryRun})
			}
		},
	})
}

// openCompose is the Compose project of the rendered lab directory dir.
func openCompose(dir string) (*compose.Compose, error) {
	if err := labdir.Check(dir); err != nil {
		return nil, err
	}
	c, err := compose.New(dir)
	if err != nil {
		return nil, &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	return c, nil
}

// composeUp brings the stack up with per-service progress.
func composeUp(ctx context.Context, env *Env, c *compose.Compose, opt compose.UpOptions) error {
	fmt.Fprintf(env.Stderr, "Starting the lab's services (docker compose up) ...\n")
	start := time.Now()
	svcs, err := c.Up(ctx, opt, func(s compose.Service) {
		fmt.Fprintf(env.Stderr, "  %-20s %s\n", s.Service, s.Describe())
	})
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	fmt.Fprintf(env.Stderr, "All %d services are ready after %s.\n", len(svcs), time.Since(start).Round(time.Second))
	return nil
}
