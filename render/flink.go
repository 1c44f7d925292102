package render

import (
	"fmt"
	"net"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// serverIDs gives every MySQL CDC source of every job its own server-id
// range: two readers of one binlog with the same id would evict each other.
// A batch job reads MySQL through JDBC, which needs none.
func serverIDs(l *schemas.Lab) map[string]string {
	out := map[string]string{}
	next := 5401
	width := l.Stack.Flink.Parallelism
	for _, j := range l.Jobs {
		if j.Mode == schemas.ModeBatch {
			continue
		}
		for _, use := range j.Uses {
			if use.Kind != schemas.StoreMySQL {
				continue
			}
			out[j.Name+":"+use.Table] = fmt.Sprintf("%d-%d", next, next+width-1)
			next += width
		}
	}
	return out
}

func quoteFlink(id string) string { return "`" + strings.ReplaceAll(id, "`", "``") + "`" }

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// withOptions renders a WITH clause with options in the given order.
func withOptions(kv ...string) string {
	var b strings.Builder
	b.WriteString("WITH (\n")
	for i := 0; i < len(kv); i += 2 {
		sep := ","
		if i+2 >= len(kv) {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s = %s%s\n", sqlString(kv[i]), sqlString(kv[i+1]), sep)
	}
	b.WriteString(")")
	return b.String()
}

// flinkColumns renders a column list with the table's primary key. Fluss
// knows no VARCHAR(n), only STRING, so its tables drop string lengths.
func flinkColumns(t *schemas.Table, kind string) string { return flinkColumnsTimed(t, kind, nil) }

// flinkColumnsTimed adds the time attributes a reading job declares: the
// processing-time column and the event-time column's watermark.
func flinkColumnsTimed(t *schemas.Table, kind string, ta *schemas.TimeAttrs) string {
	return flinkColumnList(t, kind, ta, true)
}

// flinkColumnList renders the columns, the time attributes and, if key,
// the primary key. Flink's kafka connector (an append-only topic) refuses a
// primary key: it cannot promise one row per key.
func flinkColumnList(t *schemas.Table, kind string, ta *schemas.TimeAttrs, key bool) string {
	var b strings.Builder
	b.WriteString("(\n")
	for _, c := range t.Columns {
		null := " NOT NULL"
		if c.Nullable {
			null = ""
		}
		ty := c.Type.Flink()
		if kind == schemas.StoreFluss && c.Type.Kind == schemas.TypeString {
			ty = "STRING"
		}
		fmt.Fprintf(&b, "  %s %s%s,\n", quoteFlink(c.Name), ty, null)
	}
	if ta != nil && ta.Processing != "" {
		fmt.Fprintf(&b, "  %s AS PROCTIME(),\n", quoteFlink(ta.Processing))
	}
	if ta != nil && ta.Event != "" {
		fmt.Fprintf(&b, "  WATERMARK FOR %s AS %s - %s,\n", quoteFlink(ta.Event), quoteFlink(ta.Event), flinkInterval(ta.Lateness))
	}
	if key {
		fmt.Fprintf(&b, "  PRIMARY KEY (%s) NOT ENFORCED\n)", joinMap(t.Key, quoteFlink))
	} else {
		s := strings.TrimSuffix(b.String(), ",\n")
		return s + "\n)"
	}
	return b.String()
}

// flinkInterval is a duration as a Flink SQL interval literal, in the
// largest unit that keeps it whole.
func flinkInterval(d string) string {
	dur := schemas.ParseDuration(d)
	switch {
	case dur == 0:
		return "INTERVAL '0' SECOND"
	case dur%60e9 == 0:
		return fmt.Sprintf("INTERVAL '%d' MINUTE", dur/60e9)
	case dur%1e9 == 0:
		return fmt.Sprintf("INTERVAL '%d' SECOND", dur/1e9)
	}
	return fmt.Sprintf("INTERVAL '%d.%03d' SECOND", dur/1e9, dur%1e9/1e6)
}

// flinkJob renders one job: settings, the definitions of what it reads and
// writes, then its query inserted into every Flink-reachable store of the
// table it writes. ${MYSQL_CDC_*} placeholders are filled from .env when
// the job is submitted.
func flinkJob(l *schemas.Lab, j *schemas.Job, servers map[string]string, face Face) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "--"))
	fmt.Fprintf(&b, "-- Job %s (%s).", j.Name, j.Mode)
	if j.Description != "" {
		fmt.Fprintf(&b, " %s", oneLine(j.Description))
	}
	b.WriteString("\n")
	b.WriteString("\n")
	set := func(k, v string) { fmt.Fprintf(&b, "SET %s = %s;\n", sqlString(k), sqlString(v)) }
	set("execution.runtime-mode", j.Mode)
	set("pipeline.name", j.Name)
	set("parallelism.default", fmt.Sprint(l.Stack.Flink.Parallelism))
	if j.Mode == schemas.ModeBatch {
		// Wait for the bounded job to finish, so that `batch` reports a result.
		set("table.dml-sync", "true")
	} else {
		set("table.exec.state.ttl", schemas.FlinkDuration(l.Stack.Flink.StateTTL))
	}
	if out := l.Table(j.Writes); out != nil {
		for _, s := range schemas.FlinkSinks(out) {
			if lake := schemas.LakeOf(s.Kind); lake != nil && len(lake.JobSettings) > 0 {
				fmt.Fprintf(&b, "-- %s\n", lake.WhySettings)
				for i := 0; i+1 < len(lake.JobSettings); i += 2 {
					set(lake.JobSettings[i], lake.JobSettings[i+1])
				}
			}
		}
	}
	for _, s := range j.Settings {
		set(s.Key, s.Value)
	}

	mysqlHost, mysqlPort, _ := net.SplitHostPort(face.MySQL)
	catalogs := map[string]bool{}
	declared := map[string]bool{}
	declare := func(t *schemas.Table, kind string, source bool) {
		key := kind + ":" + t.Name
		if declared[key] {
			return
		}
		declared[key] = true
		switch {
		case source && j.Mode == schemas.ModeBatch && schemas.IsSourceStore(kind):
			jdbcSource(&b, t, t.Store(kind), face)
		case kind == schemas.StoreMySQL:
			s := t.Store(kind)
			what := "MySQL's binlog (CDC)"
			var appendOnly []string
			if s.AppendOnly {
				// The table is only ever inserted into; reading it as
				// inserts lets interval joins and windows take it.
				what = "MySQL's binlog (CDC), as inserts only (the store is append_only)"
				appendOnly = []string{"scan.read-changelog-as-append-only.enabled", "true"}
			}
			fmt.Fprintf(&b, "\n-- %s, read from %s.\n", t.Name, what)
			fmt.Fprintf(&b, "CREATE TEMPORARY TABLE %s %s\n%s;\n", quoteFlink(t.Name), flinkColumnsTimed(t, kind, t.TimeOf(s)), withOptions(append([]string{
				"connector", "mysql-cdc",
				"hostname", mysqlHost,
				"port", mysqlPort,
				"username", "${MYSQL_CDC_USER}",
				"password", "${MYSQL_CDC_PASSWORD}",
				"database-name", s.Database,
				"table-name", s.Name,
				"server-id", servers[j.Name+":"+t.Name],
				"server-time-zone", "UTC",
				"scan.startup.mode", "initial",
				"jdbc.properties.allowPublicKeyRetrieval", "true",
				"jdbc.properties.useSSL", "false",
			}, appendOnly...)...))
		case kind == schemas.StorePostgres:
			postgresSource(&b, l, j, t, face)
		case kind == schemas.StoreKafka:
			kafkaTable(&b, j, t, source, face)
		case schemas.IsLake(kind):
			// Lake tables are created once, by lake_tables.sql: Fluss
			// refuses CREATE TABLE IF NOT EXISTS once the table's Paimon
			// table holds data, so a job only opens the catalog.
			s := t.Store(kind)
			lake := schemas.LakeOf(kind)
			if !catalogs[kind] {
				catalogs[kind] = true
				b.WriteString("\n")
				lakeCatalog(&b, l, lake, face)
			}
			if db := kind + ":" + s.Database; !catalogs[db] {
				catalogs[db] = true
				fmt.Fprintf(&b, "CREATE DATABASE IF NOT EXISTS %s.%s;\n", lake.Catalog, quoteFlink(s.Database))
			}
			fmt.Fprintf(&b, "-- %s is created by lake_tables.sql.\n", sinkName(t, s))
		}
	}

	for _, use := range j.Uses {
		if t := l.Table(use.Table); t != nil && t.Store(use.Kind) != nil {
			declare(t, use.Kind, true)
		}
	}
	out := l.Table(j.Writes)
	var sinks []string
	if out != nil {
		for _, s := range schemas.FlinkSinks(out) {
			declare(out, s.Kind, false)
			sinks = append(sinks, sinkName(out, s))
		}
	}

	view := quoteFlink(j.Name + "_result")
	fmt.Fprintf(&b, "\n-- The job's query")
	if j.QueryFile != "" {
		fmt.Fprintf(&b, " (from %s)", j.QueryFile)
	}
	fmt.Fprintf(&b, ".\nCREATE TEMPORARY VIEW %s AS\n%s;\n\n", view, strings.TrimSpace(j.Query))
	if out == nil {
		return []byte(b.String())
	}
	cols := joinMap(columnNames(out), quoteFlink)
	insert := func(sink string) string {
		return fmt.Sprintf("INSERT INTO %s\nSELECT %s\nFROM %s;\n", sink, cols, view)
	}
	switch len(sinks) {
	case 0:
		b.WriteString("-- No store of the written table runs in this stack: nothing to insert.\n")
	case 1:
		b.WriteString(insert(sinks[0]))
	default:
		fmt.Fprintf(&b, "-- One job writes every store of %s.\nEXECUTE STATEMENT SET\nBEGIN\n", out.Name)
		for _, s := range sinks {
			b.WriteString(insert(s))
		}
		b.WriteString("END;\n")
	}
	return []byte(b.String())
}

// kafkaTable declares t's Kafka store, read (source) or written by job j.
// Both kinds of topic carry the same messages (the key columns as the
// JSON key, every column as the JSON value), so ClickHouse's Kafka engine
// reads either: an upsert topic through upsert-kafka (one key, many
// versions; an unbounded changelog), an append-only one through the kafka
// connector (every message a row; a batch job reads it from the earliest
// offset to the latest when it starts).
func kafkaTable(b *strings.Builder, j *schemas.Job, t *schemas.Table, source bool, face Face) {
	s := t.Store(schemas.StoreKafka)
	connector, what := "upsert-kafka", "upsert: one key, many versions"
	if s.AppendOnly {
		connector, what = "kafka", "append-only: every message a new row"
	}
	opts := []string{
		"connector", connector,
		"topic", s.Name,
		"properties.bootstrap.servers", face.Kafka,
		"key.format", "json",
	}
	if s.AppendOnly {
		opts = append(opts, "key.fields", strings.Join(t.Key, ";"))
	}
	opts = append(opts,
		"value.format", "json",
		"value.fields-include", "ALL",
		"value.json.encode.decimal-as-plain-number", "true",
	)
	verb := "written to"
	var ta *schemas.TimeAttrs
	if source {
		verb = "read from"
		ta = t.TimeOf(s)
		opts = append(opts, "properties.group.id", "flink-"+j.Name)
		if s.AppendOnly {
			opts = append(opts, "scan.startup.mode", "earliest-offset")
			if j.Mode == schemas.ModeBatch {
				what += "; bounded: the messages up to the latest offset when the job starts"
				opts = append(opts, "scan.bounded.mode", "latest-offset")
			}
		}
	}
	fmt.Fprintf(b, "\n-- %s, %s the Kafka topic %s (%s).\n", t.Name, verb, s.Name, what)
	fmt.Fprintf(b, "CREATE TEMPORARY TABLE %s %s\n%s;\n", quoteFlink(t.Name), flinkColumnList(t, schemas.StoreKafka, ta, !s.AppendOnly), withOptions(opts...))
}

// jdbcSource declares a MySQL or PostgreSQL store read by a batch job:
// through Flink's JDBC connector, a bounded snapshot of the table as it is
// when the job runs (CDC's binlog or WAL reader is unbounded, which batch
// mode refuses). It reads as the CDC user, who may SELECT the lab's tables.
func jdbcSource(b *strings.Builder, t *schemas.Table, s *schemas.Store, face Face) {
	var url, table, user, password, what string
	switch s.Kind {
	case schemas.StoreMySQL:
		url = "jdbc:mysql://" + face.MySQL + "/" + s.Database
		table, user, password, what = s.Name, "${MYSQL_CDC_USER}", "${MYSQL_CDC_PASSWORD}", "MySQL"
	default:
		host, port := face.PostgresHostPort()
		url = "jdbc:postgresql://" + net.JoinHostPort(host, port) + "/" + s.Database
		table, user, password, what = schemas.PostgresSchema+"."+s.Name, "${POSTGRES_CDC_USER}", "${POSTGRES_CDC_PASSWORD}", "PostgreSQL"
	}
	fmt.Fprintf(b, "\n-- %s, read from %s through JDBC: a snapshot of the table when the job runs (bounded).\n", t.Name, what)
	fmt.Fprintf(b, "CREATE TEMPORARY TABLE %s %s\n%s;\n", quoteFlink(t.Name), flinkColumnsTimed(t, s.Kind, t.TimeOf(s)), withOptions(
		"connector", "jdbc",
		"url", url,
		"table-name", table,
		"username", user,
		"password", password,
	))
}

// lakeCatalog writes the CREATE CATALOG of a lake store kind.
func lakeCatalog(b *strings.Builder, l *schemas.Lab, k *schemas.LakeKind, face Face) {
	fmt.Fprintf(b, "-- %s\n", k.CatalogWhy(l.Stack))
	fmt.Fprintf(b, "CREATE CATALOG %s %s;\n", k.Catalog, withOptions(k.CatalogOptions(l.Stack, face.LakeWarehouse(k), face.Fluss)...))
}

// LakeTableMarker starts the comment line above each CREATE TABLE of
// lake_tables.sql; scripts/flink-jobs.sh cuts the file at these lines to
// create only the tables that are missing.
const LakeTableMarker = "-- lake table: "

// LakeTablesFile is where the lake tables' DDL is rendered.
const LakeTablesFile = "sql/flink/lake_tables.sql"

// lakeTable is a lake store of a table.
type lakeTable struct {
	t *schemas.Table
	s *schemas.Store
}

// lakeTables lists the lake stores of the lab's tables, by kind in the
// registry's order (Fluss first).
func lakeTables(l *schemas.Lab) []lakeTable {
	var out []lakeTable
	for _, k := range schemas.LakeKinds() {
		for _, t := range l.Tables {
			if s := t.Store(k.Kind); s != nil {
				out = append(out, lakeTable{t, s})
			}
		}
	}
	return out
}

// LakeTableNames are the lab's lake tables as catalog.database.table.
func LakeTableNames(l *schemas.Lab) []string {
	var out []string
	for _, x := range lakeTables(l) {
		out = append(out, schemas.LakeOf(x.s.Kind).Catalog+"."+x.s.Database+"."+x.s.Name)
	}
	return out
}

// flinkLakeTables renders lake_tables.sql: the catalogs and databases, then
// the CREATE TABLE of every lake store of the lab, each under its marker
// line. Whoever submits jobs runs it before them, creating only the tables
// its catalog does not have yet; nil when the lab has no lake store.
func flinkLakeTables(l *schemas.Lab, face Face) []byte {
	tables := lakeTables(l)
	if len(tables) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(generated(l, "--"))
	b.WriteString(`-- The lab's lake tables. Jobs only name them: Fluss refuses CREATE TABLE
-- IF NOT EXISTS once a table's Paimon table holds data, so each table is
-- created once, before the jobs, and only where its catalog lacks it (labgen
-- run asks the SQL gateway, scripts/flink-jobs.sh the SQL client). Each
-- CREATE TABLE follows a line "` + LakeTableMarker + `<catalog>.<database>.<table>".
`)
	done := map[string]bool{}
	for _, x := range tables {
		lake := schemas.LakeOf(x.s.Kind)
		if !done[x.s.Kind] {
			done[x.s.Kind] = true
			b.WriteString("\n")
			lakeCatalog(&b, l, lake, face)
		}
		if db := x.s.Kind + ":" + x.s.Database; !done[db] {
			done[db] = true
			fmt.Fprintf(&b, "CREATE DATABASE IF NOT EXISTS %s.%s;\n", lake.Catalog, quoteFlink(x.s.Database))
		}
	}
	for _, x := range tables {
		lake := schemas.LakeOf(x.s.Kind)
		fmt.Fprintf(&b, "\n%s%s.%s.%s\n", LakeTableMarker, lake.Catalog, x.s.Database, x.s.Name)
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s %s\n%s;\n", sinkName(x.t, x.s), flinkColumns(x.t, x.s.Kind), withOptions(lake.TableOptions(l.Stack)...))
	}
	return []byte(b.String())
}

// sinkName is how a job's SQL names a store of t it writes: lake tables
// through their catalogs, the Kafka store by the table's name.
func sinkName(t *schemas.Table, s *schemas.Store) string {
	if lake := schemas.LakeOf(s.Kind); lake != nil {
		return lake.Catalog + "." + quoteFlink(s.Database) + "." + quoteFlink(s.Name)
	}
	return quoteFlink(t.Name)
}
