package render

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// envFile holds the lab's users and passwords. They are local defaults:
// the lab binds every port to 127.0.0.1. Change them here before the first
// `up`; MySQL and ClickHouse create users only on an empty volume.
func envFile(l *schemas.Lab) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "#"))
	b.WriteString("# Users and passwords of the lab's services. Secrets live only in this file.\n")
	kv := func(k, v string) { fmt.Fprintf(&b, "%s=%s\n", k, v) }
	kv("COMPOSE_PROJECT_NAME", "labgen-"+strings.ReplaceAll(l.Name, "_", "-"))
	if l.Stack.MySQL != nil {
		kv("MYSQL_ROOT_PASSWORD", "labgen-root")
		kv("MYSQL_APP_USER", "lab_app")
		kv("MYSQL_APP_PASSWORD", "labgen-app")
		kv("MYSQL_CDC_USER", "flink_cdc")
		kv("MYSQL_CDC_PASSWORD", "labgen-cdc")
		kv("MYSQL_READER_USER", "lab_reader")
		kv("MYSQL_READER_PASSWORD", "labgen-reader")
	}
	if l.Stack.Postgres != nil {
		postgresEnv(kv)
	}
	if l.Stack.ClickHouse != nil {
		kv("CLICKHOUSE_USER", "lab_admin")
		kv("CLICKHOUSE_PASSWORD", "labgen-admin")
		kv("CLICKHOUSE_READER_USER", "lab_reader")
		kv("CLICKHOUSE_READER_PASSWORD", "labgen-reader")
	}
	return []byte(b.String())
}

func quoteMySQL(id string) string { return "`" + strings.ReplaceAll(id, "`", "``") + "`" }

// mysqlSchema creates the database and the tables stored in MySQL.
func mysqlSchema(l *schemas.Lab) []byte {
	var b strings.Builder
	db := l.Stack.MySQL.Database
	b.WriteString(generated(l, "--"))
	fmt.Fprintf(&b, "CREATE DATABASE IF NOT EXISTS %s CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;\nUSE %s;\n", quoteMySQL(db), quoteMySQL(db))
	for _, t := range l.Tables {
		s := t.Store(schemas.StoreMySQL)
		if s == nil {
			continue
		}
		b.WriteString("\n")
		if t.Description != "" {
			fmt.Fprintf(&b, "-- %s\n", oneLine(t.Description))
		}
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", quoteMySQL(s.Name))
		for _, c := range t.Columns {
			null := " NOT NULL"
			if c.Nullable {
				null = " NULL"
			}
			fmt.Fprintf(&b, "  %s %s%s,\n", quoteMySQL(c.Name), c.Type.MySQL(), null)
		}
		fmt.Fprintf(&b, "  PRIMARY KEY (%s)", joinMap(t.Key, quoteMySQL))
		// Index the columns that follow-ups join on (a payment's order_id),
		// so the lab's presets stay fast as rows pile up.
		for _, col := range joinColumns(l, t) {
			fmt.Fprintf(&b, ",\n  KEY %s (%s)", quoteMySQL("idx_"+col), quoteMySQL(col))
		}
		b.WriteString("\n) ENGINE = InnoDB;\n")
	}
	return []byte(b.String())
}

// joinColumns are the columns of t that a follow-up fills from its parent's
// key: the columns the lab joins on.
func joinColumns(l *schemas.Lab, t *schemas.Table) []string {
	var out []string
	for _, p := range l.Producers {
		for _, f := range p.Follows {
			if f.Table != t.Name {
				continue
			}
			for _, fd := range f.Fields {
				if fd.Dist != nil && fd.Dist.Kind == schemas.DistParent && !contains(t.Key, fd.Name) && !contains(out, fd.Name) {
					out = append(out, fd.Name)
				}
			}
		}
	}
	return out
}

// mysqlUsers creates the lab's users. The ${NAME} placeholders are filled
// from .env by init-users.sh in the MySQL container, by labgen up --native
// on MariaDB, and by tests.
func mysqlUsers(l *schemas.Lab, face Face) []byte {
	var b strings.Builder
	db := quoteMySQL(l.Stack.MySQL.Database)
	b.WriteString(generated(l, "--"))
	if face.Name == "native" {
		b.WriteString("-- The placeholders are filled from .env by labgen up --native.\n")
	} else {
		b.WriteString("-- The placeholders are filled from .env by init-users.sh.\n")
	}
	b.WriteString(`
-- The producer writes the lab's tables.
CREATE USER IF NOT EXISTS '${MYSQL_APP_USER}'@'%' IDENTIFIED BY '${MYSQL_APP_PASSWORD}';
`)
	fmt.Fprintf(&b, "GRANT SELECT, INSERT, UPDATE, DELETE ON %s.* TO '${MYSQL_APP_USER}'@'%%';\n", db)
	if face.MariaDB {
		b.WriteString(`
-- Flink's CDC sources read the binlog. MariaDB's default authentication
-- is mysql_native_password already (and it knows no IDENTIFIED WITH … BY).
CREATE USER IF NOT EXISTS '${MYSQL_CDC_USER}'@'%' IDENTIFIED BY '${MYSQL_CDC_PASSWORD}';
`)
	} else {
		b.WriteString(`
-- Flink's CDC sources read the binlog. mysql_native_password: the binlog
-- client cannot do MySQL 8's caching_sha2_password full authentication
-- without TLS ("Public Key Retrieval is not allowed").
CREATE USER IF NOT EXISTS '${MYSQL_CDC_USER}'@'%' IDENTIFIED WITH mysql_native_password BY '${MYSQL_CDC_PASSWORD}';
`)
	}
	b.WriteString(`GRANT SELECT, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '${MYSQL_CDC_USER}'@'%';

-- The console and labgen run only read.
CREATE USER IF NOT EXISTS '${MYSQL_READER_USER}'@'%' IDENTIFIED BY '${MYSQL_READER_PASSWORD}';
`)
	fmt.Fprintf(&b, "GRANT SELECT ON %s.* TO '${MYSQL_READER_USER}'@'%%';\n", db)
	return []byte(b.String())
}

// mysqlInitScript runs once, on the MySQL container's first start: it
// fills users.sql's placeholders from .env (templates/mysql-init-users.sh.tmpl).
func mysqlInitScript(l *schemas.Lab) ([]byte, error) {
	return execTemplate("mysql-init-users.sh", newScriptData(l))
}

func quoteCH(id string) string { return "`" + strings.ReplaceAll(id, "`", "\\`") + "`" }

// clickhouseSchema creates the serving tables and, for tables with a
// Kafka store, a Kafka-engine table and a materialized view that move the
// topic's rows in. Tombstones (empty messages) yield no rows.
func clickhouseSchema(l *schemas.Lab, face Face) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "--"))
	db := l.Stack.ClickHouse.Database
	fmt.Fprintf(&b, "CREATE DATABASE IF NOT EXISTS %s;\n", quoteCH(db))
	for _, t := range l.Tables {
		s := t.Store(schemas.StoreClickHouse)
		if s == nil {
			continue
		}
		full := quoteCH(db) + "." + quoteCH(s.Name)
		b.WriteString("\n")
		if t.Description != "" {
			fmt.Fprintf(&b, "-- %s\n", oneLine(t.Description))
		}
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s\n(\n", full)
		chColumns(&b, t)
		engine := "ReplacingMergeTree"
		if s.Version != "" {
			engine += "(" + quoteCH(s.Version) + ")"
		}
		fmt.Fprintf(&b, ")\nENGINE = %s\nORDER BY (%s);\n", engine, joinMap(t.Key, quoteCH))

		k := t.Store(schemas.StoreKafka)
		if s.Ingest != schemas.StoreKafka || k == nil || l.Stack.Kafka == nil {
			continue
		}
		queue := quoteCH(db) + "." + quoteCH(s.Name+"_queue")
		fmt.Fprintf(&b, "\n-- Reads the topic %s; the view below moves each batch into %s.\n", k.Name, s.Name)
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s\n(\n", queue)
		chColumns(&b, t)
		fmt.Fprintf(&b, ")\nENGINE = Kafka\nSETTINGS\n")
		fmt.Fprintf(&b, "    kafka_broker_list = '%s',\n", face.Kafka)
		fmt.Fprintf(&b, "    kafka_topic_list = '%s',\n", k.Name)
		fmt.Fprintf(&b, "    kafka_group_name = 'clickhouse-%s',\n", s.Name)
		fmt.Fprintf(&b, "    kafka_format = 'JSONEachRow',\n")
		fmt.Fprintf(&b, "    kafka_num_consumers = 1;\n")
		fmt.Fprintf(&b, "\nCREATE MATERIALIZED VIEW IF NOT EXISTS %s TO %s AS\nSELECT %s\nFROM %s;\n",
			quoteCH(db)+"."+quoteCH(s.Name+"_mv"), full, joinMap(columnNames(t), quoteCH), queue)
	}
	return []byte(b.String())
}

func chColumns(b *strings.Builder, t *schemas.Table) {
	for i, c := range t.Columns {
		ty := c.Type.ClickHouse()
		if c.Nullable {
			ty = "Nullable(" + ty + ")"
		}
		sep := ","
		if i == len(t.Columns)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "    %s %s%s\n", quoteCH(c.Name), ty, sep)
	}
}

// clickhouseUsers adds the read-only user the console and runs use; its
// password comes from the container's environment (.env).
func clickhouseUsers(l *schemas.Lab) []byte {
	return []byte(`<?xml version="1.0"?>
<!--` + strings.TrimSuffix(strings.TrimPrefix(generated(l, ""), " "), "\n") + ` -->
<!-- The read-only user of the console and of labgen run. -->
<clickhouse>
    <profiles>
        <lab_readonly>
            <readonly>1</readonly>
            <max_execution_time>30</max_execution_time>
            <!-- clickhouse-go sends max_execution_time with every query
                 that has a deadline (all of labgen's do); readonly=1 would
                 refuse that setting (code 164) without this constraint. -->
            <constraints>
                <max_execution_time>
                    <min>1</min>
                    <max>600</max>
                    <changeable_in_readonly/>
                </max_execution_time>
            </constraints>
        </lab_readonly>
    </profiles>
    <users>
        <lab_reader>
            <password from_env="CLICKHOUSE_READER_PASSWORD"/>
            <profile>lab_readonly</profile>
            <networks>
                <ip>::/0</ip>
            </networks>
            <grants>
                <query>GRANT SELECT ON ` + l.Stack.ClickHouse.Database + `.*</query>
            </grants>
        </lab_reader>
    </users>
</clickhouse>
`)
}

func columnNames(t *schemas.Table) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func joinMap(xs []string, f func(string) string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return strings.Join(out, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
