package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// envFile holds the lab's users and passwords. The passwords are local
// defaults (the lab binds every port to 127.0.0.1) unless secrets, given
// at render time (Options.Secrets), replace them; the same lab and secrets
// give the same bytes. MySQL, PostgreSQL and ClickHouse create their users
// only on an empty volume, so passwords are chosen before the first `up`.
func envFile(l *schemas.Lab, project string, secrets map[string]string) ([]byte, error) {
	type entry struct{ k, v string }
	var entries []entry
	kv := func(k, v string) { entries = append(entries, entry{k, v}) }
	kv("COMPOSE_PROJECT_NAME", project)
	for _, d := range sources(l) {
		d.env(kv)
	}
	if l.Stack.ClickHouse != nil {
		kv("CLICKHOUSE_USER", "lab_admin")
		kv("CLICKHOUSE_PASSWORD", "labgen-admin")
		kv("CLICKHOUSE_READER_USER", "lab_reader")
		kv("CLICKHOUSE_READER_PASSWORD", "labgen-reader")
	}
	var passwords, given []string
	for _, e := range entries {
		if isPasswordKey(e.k) {
			passwords = append(passwords, e.k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(secrets)) {
		v := secrets[k]
		switch {
		case !contains(passwords, k):
			what := "is not a key of the lab's .env"
			for _, e := range entries {
				if e.k == k {
					what = "is not a password (user names and the project name are fixed by the rendered files)"
				}
			}
			return nil, &SecretsError{fmt.Sprintf("%s %s; the lab's passwords are %s", k, what, strings.Join(passwords, ", "))}
		case v == "":
			return nil, &SecretsError{k + " is empty"}
		case strings.Trim(v, secretChars) != "":
			return nil, &SecretsError{fmt.Sprintf("%s has characters other than letters, digits and %s (the password goes into URLs, DSNs, SQL and shell as it is)", k, strings.Join(strings.Split(secretPunct, ""), " "))}
		}
		given = append(given, k)
	}
	var b strings.Builder
	b.WriteString(generated(l, "#"))
	b.WriteString("# Users and passwords of the lab's services. Secrets live only in this file.\n")
	if len(given) > 0 {
		fmt.Fprintf(&b, "# Chosen at render time (labgen render --env-file): %s.\n", strings.Join(given, ", "))
	}
	for _, e := range entries {
		v := e.v
		if s, ok := secrets[e.k]; ok {
			v = s
		}
		fmt.Fprintf(&b, "%s=%s\n", e.k, v)
	}
	return []byte(b.String()), nil
}

// The characters a password given at render time may have: URL-unreserved
// ones, which need no quoting in a URL, a DSN, SQL, XML or a shell word.
const (
	secretPunct = "-_.~"
	secretChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" + secretPunct
)

// isPasswordKey tells whether a .env key names a password (and is kept out
// of records and logs).
func isPasswordKey(k string) bool { return strings.HasSuffix(k, "_PASSWORD") }

// SecretsError is Render's error for Options.Secrets it cannot take: a key
// the lab's .env has no password of, or a value it cannot carry.
type SecretsError struct{ Msg string }

func (e *SecretsError) Error() string { return "secrets: " + e.Msg }

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
		chColumns(&b, t, s.Arrival != "")
		if s.Arrival != "" {
			// Left out of the view's SELECT, so every insert fills it.
			fmt.Fprintf(&b, "    %s DateTime64(3) DEFAULT now64(3)\n", quoteCH(s.Arrival))
		}
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
		chColumns(&b, t, false)
		fmt.Fprintf(&b, ")\nENGINE = Kafka\nSETTINGS\n")
		fmt.Fprintf(&b, "    kafka_broker_list = '%s',\n", face.ClickHouseKafka())
		fmt.Fprintf(&b, "    kafka_topic_list = '%s',\n", k.Name)
		fmt.Fprintf(&b, "    kafka_group_name = 'clickhouse-%s',\n", s.Name)
		fmt.Fprintf(&b, "    kafka_format = 'JSONEachRow',\n")
		fmt.Fprintf(&b, "    kafka_num_consumers = 1;\n")
		fmt.Fprintf(&b, "\nCREATE MATERIALIZED VIEW IF NOT EXISTS %s TO %s AS\nSELECT %s\nFROM %s;\n",
			quoteCH(db)+"."+quoteCH(s.Name+"_mv"), full, joinMap(columnNames(t), quoteCH), queue)
	}
	return []byte(b.String())
}

// chColumns writes t's columns; more: another column follows the last.
func chColumns(b *strings.Builder, t *schemas.Table, more bool) {
	for i, c := range t.Columns {
		ty := c.Type.ClickHouse()
		if c.Nullable {
			ty = "Nullable(" + ty + ")"
		}
		sep := ","
		if i == len(t.Columns)-1 && !more {
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
