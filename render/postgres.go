package render

import (
	"fmt"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/labgen/labgen/schemas"
)

// PostgreSQL as a source store: its .env users, its DDL and users, its
// compose service, how the producer and the console reach it, and its
// Flink CDC source tables.

var postgresDB = &sourceDB{
	component: "postgres",
	env: func(kv func(k, v string)) {
		kv("POSTGRES_PASSWORD", "labgen-root")
		kv("POSTGRES_APP_USER", "lab_app")
		kv("POSTGRES_APP_PASSWORD", "labgen-app")
		kv("POSTGRES_CDC_USER", "flink_cdc")
		kv("POSTGRES_CDC_PASSWORD", "labgen-cdc")
		kv("POSTGRES_READER_USER", "lab_reader")
		kv("POSTGRES_READER_PASSWORD", "labgen-reader")
	},
	cdc:        cdcUser{"POSTGRES_CDC_USER", "POSTGRES_CDC_PASSWORD"},
	schema:     postgresSchema,
	users:      func(l *schemas.Lab, _ Face) []byte { return postgresUsers(l) },
	initScript: postgresInitScript,
	service:    postgresService,
	producer: func(l *schemas.Lab) (string, string, string) {
		return "postgres", "LABGEN_POSTGRES_URL", postgresURL(l, "POSTGRES_APP_USER", "POSTGRES_APP_PASSWORD")
	},
	// The console builds its URL from the reader's name and password.
	console: func(_ *schemas.Lab, m types.MappingWithEquals) (types.MappingWithEquals, string) {
		return fromEnv(m, "POSTGRES_READER_USER", "POSTGRES_READER_PASSWORD"), " --postgres postgres:5432"
	},
}

const (
	volPostgres = "postgres-data"
	// postgresPublication is the publication Flink's CDC sources read:
	// created with the tables, so the CDC user needs no right to create
	// one (FOR ALL TABLES would need a superuser).
	postgresPublication = "labgen_cdc"
)

func quotePostgres(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

// postgresTables are the tables stored in PostgreSQL, with their stores.
func postgresTables(l *schemas.Lab) (out []*schemas.Table) {
	for _, t := range l.Tables {
		if t.Store(schemas.StorePostgres) != nil {
			out = append(out, t)
		}
	}
	return out
}

// postgresSchema creates the tables stored in PostgreSQL in the public
// schema of the lab's database (the image creates the database), and the
// publication of them that CDC reads. REPLICA IDENTITY FULL: an update's
// and a delete's old row carries every column, as MySQL's binlog with
// binlog_row_image=FULL does.
func postgresSchema(l *schemas.Lab) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "--"))
	var names []string
	for _, t := range postgresTables(l) {
		s := t.Store(schemas.StorePostgres)
		names = append(names, quotePostgres(s.Name))
		b.WriteString("\n")
		if t.Description != "" {
			fmt.Fprintf(&b, "-- %s\n", oneLine(t.Description))
		}
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", quotePostgres(s.Name))
		for _, c := range t.Columns {
			null := " NOT NULL"
			if c.Nullable {
				null = " NULL"
			}
			fmt.Fprintf(&b, "  %s %s%s,\n", quotePostgres(c.Name), c.Type.Postgres(), null)
		}
		fmt.Fprintf(&b, "  PRIMARY KEY (%s)\n);\n", joinMap(t.Key, quotePostgres))
		fmt.Fprintf(&b, "ALTER TABLE %s REPLICA IDENTITY FULL;\n", quotePostgres(s.Name))
		// Index the columns that follow-ups join on, as on MySQL.
		for _, col := range joinColumns(l, t) {
			fmt.Fprintf(&b, "CREATE INDEX IF NOT EXISTS %s ON %s (%s);\n", quotePostgres("idx_"+s.Name+"_"+col), quotePostgres(s.Name), quotePostgres(col))
		}
	}
	if len(names) > 0 {
		// Guarded: CREATE PUBLICATION has no IF NOT EXISTS, and the native
		// stack applies the schema on every start.
		fmt.Fprintf(&b, "\n-- What Flink's CDC sources read (pgoutput).\nDO $$\nBEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '%s') THEN\n    CREATE PUBLICATION %s FOR TABLE %s;\n  END IF;\nEND\n$$;\n",
			postgresPublication, postgresPublication, strings.Join(names, ", "))
	}
	return []byte(b.String())
}

// postgresUsers creates the lab's users. The :"name" and :'name'
// variables are psql's, set from .env by init-users.sh: psql quotes them,
// so no value can change the statement.
func postgresUsers(l *schemas.Lab) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "--"))
	b.WriteString(`-- Run by init-users.sh with psql, which fills the variables from .env.

-- The producer writes the lab's tables.
CREATE ROLE :"app_user" LOGIN PASSWORD :'app_password';
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"app_user";

-- Flink's CDC sources read the write-ahead log through a replication slot
-- each, and snapshot the tables first.
CREATE ROLE :"cdc_user" LOGIN REPLICATION PASSWORD :'cdc_password';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO :"cdc_user";

-- The console and labgen run only read; their sessions are read-only too.
CREATE ROLE :"reader_user" LOGIN PASSWORD :'reader_password';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO :"reader_user";
ALTER ROLE :"reader_user" SET default_transaction_read_only = on;
`)
	return []byte(b.String())
}

// postgresInitScript runs once, on the postgres container's first start,
// after the schema (templates/postgres-init-users.sh.tmpl).
func postgresInitScript(l *schemas.Lab) ([]byte, error) {
	return execTemplate("postgres-init-users.sh", newScriptData(l))
}

func postgresService(l *schemas.Lab) types.ServiceConfig {
	p := l.Stack.Postgres
	svc := types.ServiceConfig{}
	svc.Image = p.Image
	svc.Command = types.ShellCommand{"postgres",
		// Logical decoding for Flink CDC (pgoutput), a slot per source.
		"-c", "wal_level=logical",
		"-c", "max_replication_slots=16",
		"-c", "max_wal_senders=16",
		"-c", "timezone=UTC",
		"-c", "shared_buffers=" + schemas.PostgresSharedBuffers,
	}
	svc.Environment = fromEnv(env("POSTGRES_DB", p.Database), "POSTGRES_PASSWORD",
		"POSTGRES_APP_USER", "POSTGRES_APP_PASSWORD",
		"POSTGRES_CDC_USER", "POSTGRES_CDC_PASSWORD",
		"POSTGRES_READER_USER", "POSTGRES_READER_PASSWORD")
	svc.Volumes = []types.ServiceVolumeConfig{
		namedVolume(volPostgres, "/var/lib/postgresql/data"),
		bindRO("./sql/postgres/schema.sql", "/docker-entrypoint-initdb.d/10-schema.sql"),
		bindRO("./sql/postgres/init-users.sh", "/docker-entrypoint-initdb.d/20-users.sh"),
		labMount(),
	}
	svc.Ports = []types.ServicePortConfig{publish(p.Port, 5432)}
	return svc
}

// postgresURL is the lab's database inside the stack, as a user of .env.
func postgresURL(l *schemas.Lab, userVar, passwordVar string) string {
	return fmt.Sprintf("postgres://%s:%s@postgres:5432/%s?sslmode=disable", envRef(userVar), envRef(passwordVar), l.Stack.Postgres.Database)
}

// postgresSource is the Flink CDC source of a table stored in
// PostgreSQL: its own replication slot (two sources on one slot would
// take each other's changes), the publication of the schema's tables.
func postgresSource(b *strings.Builder, l *schemas.Lab, j *schemas.Job, t *schemas.Table, face Face) {
	s := t.Store(schemas.StorePostgres)
	host, port := face.PostgresHostPort()
	fmt.Fprintf(b, "\n-- %s, read from PostgreSQL's write-ahead log (CDC, pgoutput).\n", t.Name)
	fmt.Fprintf(b, "CREATE TEMPORARY TABLE %s %s\n%s;\n", quoteFlink(t.Name), flinkColumnsTimed(t, schemas.StorePostgres, t.TimeOf(s)), withOptions(
		"connector", "postgres-cdc",
		"hostname", host,
		"port", port,
		"username", "${POSTGRES_CDC_USER}",
		"password", "${POSTGRES_CDC_PASSWORD}",
		"database-name", s.Database,
		"schema-name", schemas.PostgresSchema,
		"table-name", s.Name,
		"slot.name", postgresSlot(j, t),
		"decoding.plugin.name", "pgoutput",
		"debezium.publication.name", postgresPublication,
		"debezium.publication.autocreate.mode", "disabled",
		"scan.incremental.snapshot.enabled", "true",
		"scan.startup.mode", "initial",
	))
}

// postgresSlot names a source's replication slot: lowercase letters,
// digits and underscores, at most 63 bytes.
func postgresSlot(j *schemas.Job, t *schemas.Table) string {
	s := "labgen_" + j.Name + "_" + t.Name
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.ToLower(s)
}
