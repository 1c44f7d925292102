package schemas

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// DefaultPostgresVersion is the postgres image's tag: the release Flink
// CDC 3.5's postgres-cdc connector is tested against, with pgoutput.
const DefaultPostgresVersion = "17"

// Postgres is a source database, as MySQL is: the producer writes its
// tables and Flink reads them through logical replication (pgoutput).
// Tables live in the database's public schema.
type Postgres struct {
	Version   string    `json:"version"`
	Image     string    `json:"image"`
	Database  string    `json:"database"`
	Port      int       `json:"port"`
	DeclRange hcl.Range `json:"-"`
}

// PostgresSchema is the schema the lab's tables live in.
const PostgresSchema = "public"

// PostgresSharedBuffers is the server's shared_buffers: the lab's tables
// are small, and the default 128 MB is most of its memory limit.
const PostgresSharedBuffers = "64MB"

var postgresComponent = &ComponentDesc{
	Name: "postgres", Title: "PostgreSQL",
	Present: func(s *Stack) bool { return s.Postgres != nil },
	Services: []ServiceDesc{{Name: "postgres", Step: true,
		Memory: fixed(Memory{MB: 256, Why: "PostgreSQL with shared_buffers=" + PostgresSharedBuffers + ", logical decoding for the CDC slots"}),
		// It reads a table the init scripts create, as the reader user
		// they create, over TCP: the image's first start runs them on a
		// server that listens on its socket only.
		Health: &Health{Test: func(l *Lab) string {
			probe := "SELECT 1"
			for _, t := range l.Tables {
				if st := t.Store(StorePostgres); st != nil {
					probe = fmt.Sprintf("SELECT 1 FROM %s LIMIT 1", st.Name)
					break
				}
			}
			return fmt.Sprintf(`PGPASSWORD="$$POSTGRES_READER_PASSWORD" psql -h 127.0.0.1 -U "$$POSTGRES_READER_USER" -d %s -c "%s" >/dev/null`, l.Stack.Postgres.Database, probe)
		}, Interval: sec(5), StartPeriod: sec(60), Retries: 30},
		Listens: []ContainerPort{{"postgres", 5432}},
	}},
	Images: func(l *Lab) []Image { return images("postgres", l.Stack.Postgres.Image) },
	Ports:  func(s *Stack) map[string]int { return map[string]int{"postgres": s.Postgres.Port} },
	schema: componentSchema("version", "image", "database", "port"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		v := orDefault(d.version(at["version"]), DefaultPostgresVersion)
		st.Postgres = &Postgres{
			Version:   v,
			Image:     orDefault(d.image(at["image"]), "postgres:"+v),
			Database:  orDefault(d.identifier(at["database"]), "shop"),
			Port:      port(d, at["port"], 5432),
			DeclRange: b.DefRange,
		}
	},
}

// SourceStore is the store the lab's producer writes: mysql when the
// stack runs MySQL, else postgres when it runs PostgreSQL, else "".
func (l *Lab) SourceStore() string {
	switch {
	case l.Stack == nil:
	case l.Stack.MySQL != nil:
		return StoreMySQL
	case l.Stack.Postgres != nil:
		return StorePostgres
	}
	return ""
}

// Postgres is the column type in PostgreSQL. It has no one-byte integer:
// tinyint is SMALLINT.
func (t LogicalType) Postgres() string {
	switch t.Kind {
	case TypeTinyInt, TypeSmallInt:
		return "SMALLINT"
	case TypeInt:
		return "INTEGER"
	case TypeBigInt:
		return "BIGINT"
	case TypeFloat:
		return "REAL"
	case TypeDouble:
		return "DOUBLE PRECISION"
	case TypeDecimal:
		return fmt.Sprintf("NUMERIC(%d,%d)", t.Precision, t.Scale)
	case TypeString:
		if t.Length > 0 {
			return fmt.Sprintf("VARCHAR(%d)", t.Length)
		}
		return "TEXT"
	case TypeTimestamp:
		return fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	}
	return strings.ToUpper(string(t.Kind))
}
