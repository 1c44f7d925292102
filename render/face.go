package render

import (
	"fmt"
	"net"
	"strconv"

	"github.com/labgen/labgen/schemas"
)

// Face is where the rendered services find each other. The compose face
// uses the services' names on the compose network and the containers'
// paths; the native face (labgen up --native) uses 127.0.0.1, the host's
// ports and directories under the lab's .native/. Everything else in the
// rendered SQL is the same for both.
type Face struct {
	// Name is "compose" or "native".
	Name string
	// MySQL is host:port of MySQL as Flink's CDC sources reach it.
	MySQL string
	// Postgres is host:port of PostgreSQL as Flink's CDC sources reach it.
	Postgres string
	// Kafka is the bootstrap address Flink and ClickHouse use.
	Kafka string
	// KafkaClickHouse, when set, is the bootstrap address ClickHouse's
	// Kafka engine tables use instead of Kafka: the native stack's link
	// proxy, when a latency control slows that link.
	KafkaClickHouse string
	// Fluss is the Fluss coordinator's address for Flink.
	Fluss string
	// Warehouse holds the lake warehouses (iceberg/, paimon/, fluss/,
	// paimon-direct/: schemas.LakeKind.Warehouse).
	Warehouse string
	// MariaDB says the MySQL is MariaDB, whose CREATE USER knows no
	// IDENTIFIED WITH … BY (the native stack: no MySQL 8 server is to be
	// had without Docker).
	MariaDB bool
}

// ComposeFace is the face of compose.yaml.
var ComposeFace = Face{Name: "compose", MySQL: "mysql:3306", Postgres: "postgres:5432", Kafka: KafkaInternal, Fluss: FlussBootstrap, Warehouse: WarehouseDir}

// ClickHouseKafka is the bootstrap address of ClickHouse's Kafka engine
// tables.
func (f Face) ClickHouseKafka() string {
	if f.KafkaClickHouse != "" {
		return f.KafkaClickHouse
	}
	return f.Kafka
}

// PostgresHostPort splits Postgres into Flink CDC's hostname and port.
func (f Face) PostgresHostPort() (host, port string) {
	host, port, _ = net.SplitHostPort(f.Postgres)
	return host, port
}

// LakeWarehouse is the warehouse URI of a lake store kind's catalog.
func (f Face) LakeWarehouse(k *schemas.LakeKind) string {
	return "file://" + f.Warehouse + "/" + k.Warehouse
}

// PaimonWarehouse is the Paimon warehouse Fluss tiers into.
func (f Face) PaimonWarehouse() string { return f.Warehouse + "/paimon" }

// FlussRemote is Fluss's remote.data.dir.
func (f Face) FlussRemote() string { return f.Warehouse + "/fluss" }

// NativeFace is the face of a native stack whose services listen on
// 127.0.0.1 at the given ports and keep the lakes in warehouse.
func NativeFace(l *schemas.Lab, kafkaPort, flussPort int, warehouse string) Face {
	f := Face{Name: "native", Kafka: local(kafkaPort), Fluss: local(flussPort), Warehouse: warehouse, MariaDB: true}
	if m := l.Stack.MySQL; m != nil {
		f.MySQL = local(m.Port)
	}
	if p := l.Stack.Postgres; p != nil {
		f.Postgres = local(p.Port)
	}
	return f
}

func local(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// FaceFiles renders the files whose contents depend on the face: the
// Flink jobs, the MySQL users and the ClickHouse schema, at the same paths
// as in the lab directory. The native stack renders them into its state
// directory from lab.json; Render writes the compose face's through it.
func FaceFiles(l *schemas.Lab, f Face) (Files, error) {
	if f.Name == "" {
		return nil, fmt.Errorf("render: a face needs a name")
	}
	files := Files{}
	for _, d := range sources(l) {
		files["sql/"+d.component+"/schema.sql"] = d.schema(l)
		files["sql/"+d.component+"/users.sql"] = d.users(l, f)
	}
	if l.Stack.ClickHouse != nil {
		files["sql/clickhouse/schema.sql"] = clickhouseSchema(l, f)
	}
	if l.Stack.Flink != nil {
		servers := serverIDs(l)
		for _, j := range l.Jobs {
			// An unavailable job has nothing to run against; lab.json and
			// the runbook say why it is missing.
			if j.Unavailable == "" {
				files[schemas.JobFile(j.Name)] = flinkJob(l, j, servers, f)
			}
		}
		for _, c := range l.Controls {
			// A mutant is rendered as its job is, under the job's name, so
			// that it replaces the job on the cluster while the control is
			// on.
			if c.Mutant != nil && c.Mutant.Unavailable == "" {
				files[c.MutantFile()] = flinkJob(l, c.Mutant, servers, f)
			}
		}
		if sql := flinkLakeTables(l, f); sql != nil {
			files[LakeTablesFile] = sql
		}
	}
	return files, nil
}
