package render

import (
	"fmt"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/labgen/labgen/schemas"
)

// MySQL as a source store: its .env users, its DDL and users, its compose
// service, and how the producer and the console reach it. Its Flink CDC
// source tables are render/flink.go's.

var mysqlDB = &sourceDB{
	component: "mysql",
	env: func(kv func(k, v string)) {
		kv("MYSQL_ROOT_PASSWORD", "labgen-root")
		kv("MYSQL_APP_USER", "lab_app")
		kv("MYSQL_APP_PASSWORD", "labgen-app")
		kv("MYSQL_CDC_USER", "flink_cdc")
		kv("MYSQL_CDC_PASSWORD", "labgen-cdc")
		kv("MYSQL_READER_USER", "lab_reader")
		kv("MYSQL_READER_PASSWORD", "labgen-reader")
	},
	cdc:        cdcUser{"MYSQL_CDC_USER", "MYSQL_CDC_PASSWORD"},
	schema:     mysqlSchema,
	users:      mysqlUsers,
	initScript: mysqlInitScript,
	service:    mysqlService,
	producer: func(l *schemas.Lab) (string, string, string) {
		return "mysql", "LABGEN_MYSQL_DSN", mysqlDSN(l, "MYSQL_APP_USER", "MYSQL_APP_PASSWORD")
	},
	console: func(l *schemas.Lab, m types.MappingWithEquals) (types.MappingWithEquals, string) {
		m["LABGEN_MYSQL_DSN"] = str(mysqlDSN(l, "MYSQL_READER_USER", "MYSQL_READER_PASSWORD"))
		return m, ` --mysql "$$LABGEN_MYSQL_DSN"`
	},
}

const volMySQL = "mysql-data"

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

func mysqlService(l *schemas.Lab) types.ServiceConfig {
	m := l.Stack.MySQL
	svc := types.ServiceConfig{}
	svc.Image = m.Image
	svc.Command = types.ShellCommand{
		"--server-id=1",
		"--log-bin=mysql-bin",
		"--binlog-format=ROW",
		"--binlog-row-image=FULL",
		"--gtid-mode=ON",
		"--enforce-gtid-consistency=ON",
		// UTC; a named zone would need the time zone tables, which the
		// first start loads only after the server came up.
		"--default-time-zone=+00:00",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_bin",
		// About 200 MB less memory; nothing in the lab reads it.
		"--performance-schema=OFF",
	}
	svc.Environment = fromEnv(nil, "MYSQL_ROOT_PASSWORD",
		"MYSQL_APP_USER", "MYSQL_APP_PASSWORD",
		"MYSQL_CDC_USER", "MYSQL_CDC_PASSWORD",
		"MYSQL_READER_USER", "MYSQL_READER_PASSWORD")
	svc.Volumes = []types.ServiceVolumeConfig{
		namedVolume(volMySQL, "/var/lib/mysql"),
		bindRO("./sql/mysql/schema.sql", "/docker-entrypoint-initdb.d/10-schema.sql"),
		bindRO("./sql/mysql/init-users.sh", "/docker-entrypoint-initdb.d/20-users.sh"),
		labMount(),
	}
	svc.Ports = []types.ServicePortConfig{publish(m.Port, 3306)}
	return svc
}

// mysqlDSN is a go-sql-driver DSN for the lab's database inside the stack.
func mysqlDSN(l *schemas.Lab, userVar, passwordVar string) string {
	return fmt.Sprintf("%s:%s@tcp(mysql:3306)/%s", envRef(userVar), envRef(passwordVar), l.Stack.MySQL.Database)
}
