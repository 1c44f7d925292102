package native

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// Service is one supervised process: the native face of a compose service.
type Service struct {
	// Name is the compose service it stands for ("jobmanager").
	Name string
	// Argv is the command; Argv[0] is looked up on PATH.
	Argv []string
	// Env is added to the supervisor's environment.
	Env []string
	// Dir is the working directory ("" is the service's data directory).
	Dir string
	// Credential is whom the process runs as (nil: the supervisor's
	// user); PostgreSQL refuses to run as root.
	Credential *syscall.Credential
	// Files are written (absolute paths) before every start.
	Files map[string][]byte
	// Reads are what the process reads at its start besides its argv,
	// env and Files (a part of lab.json), by name; only its Inputs use
	// them.
	Reads map[string][]byte
	// Needs are services that must be healthy before this one starts
	// (Prepare draws them from the registry: nativeNeeds).
	Needs []string
	// Health says when the service is up, as its compose health check does.
	Health Probe
	// Setup runs before the first start of a fresh state directory
	// (formatting storage, installing a database); it must be idempotent.
	Setup func(ctx context.Context) error
	// Ready runs once after the service is first healthy (schema, topics,
	// users); it must be idempotent.
	Ready func(ctx context.Context) error
	// Memory is the service's memory budget as the Resources table shows
	// it ("512m"), and Why says what sets it.
	Memory, Why string
	// StandIn names what the native service stands in for, when it is not
	// the engine the compose file runs ("MariaDB 10.11 for MySQL 8.0").
	StandIn string
	// Version is the release that runs, from the main jar on its class
	// path ("kafka_2.13 4.1.0"); "" where the engine is asked instead.
	Version string
}

// jarVersion names the artifact's jar on a class path and its version
// ("zookeeper 3.9.2" from …/zookeeper-3.9.2.jar), or "".
func jarVersion(classpath []string, artifact string) string {
	for _, p := range classpath {
		base := filepath.Base(p)
		v, ok := strings.CutPrefix(base, artifact+"-")
		if !ok || !strings.HasSuffix(v, ".jar") || v == "" || v[0] < '0' || v[0] > '9' {
			continue
		}
		return artifact + " " + strings.TrimSuffix(v, ".jar")
	}
	return ""
}

// httpProbe asks base (http://host:port) for the path the service's
// compose health check asks (its description in schemas' registry).
func httpProbe(service, base string, start time.Duration) Probe {
	return Probe{HTTP: base + schemas.HealthPath(service), Start: start}
}

// Probe is a health check. The first non-empty field is used.
type Probe struct {
	// TCP is host:port that must accept a connection.
	TCP string
	// HTTP is a URL that must answer 2xx.
	HTTP string
	// Func is any other check.
	Func func(ctx context.Context) error
	// Start bounds how long the service may take to become healthy
	// (default two minutes).
	Start time.Duration
}

// Layout is where a native stack keeps its state: OUT/.native.
type Layout struct {
	// Lab is the rendered lab directory (absolute).
	Lab string
	// State is Lab/.native.
	State string
}

// NewLayout is the layout of the rendered lab directory dir.
func NewLayout(dir string) (Layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Layout{}, err
	}
	return Layout{Lab: abs, State: filepath.Join(abs, ".native")}, nil
}

// Data is a service's data directory.
func (l Layout) Data(service string) string { return filepath.Join(l.State, "data", service) }

// Conf is a service's configuration directory.
func (l Layout) Conf(service string) string { return filepath.Join(l.State, "conf", service) }

// Log is the file a service's output goes to.
func (l Layout) Log(service string) string { return filepath.Join(l.State, "logs", service+".log") }

// Warehouse holds the lake warehouses (paimon/, iceberg/, fluss/), shared
// by Flink and Fluss as the compose volume "warehouse" is.
func (l Layout) Warehouse() string {
	return filepath.Join(l.Lab, filepath.FromSlash(labdir.WarehouseDir))
}

// MySQLRoot is the client option file with the native MySQL's (MariaDB's)
// root user and password, mode 0600 in a directory of mode 0700: made on
// the first up, kept by down, removed with the data by down --volumes.
func (l Layout) MySQLRoot() string { return filepath.Join(l.State, "secrets", "mysql-root.cnf") }

// Checkpoints holds Flink's checkpoints and savepoints.
func (l Layout) Checkpoints() string { return filepath.Join(l.State, "checkpoints") }

// Cache holds what is downloaded once for every lab (Maven's class path
// files, the chdb virtualenv): $XDG_CACHE_HOME/labgen or ~/.cache/labgen.
func Cache() string {
	if d := getenv("LABGEN_CACHE"); d != "" {
		return d
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "labgen")
	}
	return filepath.Join(getenv("HOME"), ".cache", "labgen")
}

// Ports are where the native services listen, all on 127.0.0.1. The
// published ports come from lab.json; the others are fixed here.
type Ports struct {
	MySQL, Postgres, Kafka, FlinkREST, Gateway, ClickHouseHTTP, Console int
	KafkaController, ZooKeeper, FlussCoordinator, FlussTablet           int
	FlinkRPC, FlinkBlob                                                 int
	// LinkProxyAPI and the links' listeners are 0 unless a latency
	// control of the lab slows a link. KafkaClickHouse is the broker's
	// listener the Kafka → ClickHouse link reaches through the proxy,
	// which it advertises as LinkKafkaClickHouse, so that ClickHouse's
	// every connection (the broker, its group coordinator) goes through
	// the proxy, not only the first.
	LinkProxyAPI, LinkMySQLFlink, LinkKafkaClickHouse, KafkaClickHouse int
}
