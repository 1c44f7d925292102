package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/schemas"
)

func loadLab(t *testing.T, dir string) *schemas.Lab {
	t.Helper()
	l, diags := schemas.NewParser().Load(dir, schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return l
}

func hasJar(jars []Jar, artifact string) bool {
	for _, j := range jars {
		if j.Artifact == artifact {
			return true
		}
	}
	return false
}

// TestBoundedReads checks how the sensors lab's jobs read their stores: a
// batch job reads MySQL through JDBC and an append-only topic up to its
// latest offset; streaming jobs read the append-only MySQL table as
// inserts and write the append-only topic with the kafka connector.
func TestBoundedReads(t *testing.T) {
	l := loadLab(t, "../labs/sensors")
	servers := serverIDs(l)
	job := func(name string) string { return string(flinkJob(l, l.Job(name), servers, ComposeFace)) }

	summary := job("device_summary")
	for _, want := range []string{
		"-- readings, read from MySQL through JDBC: a snapshot of the table when the job runs (bounded).",
		"'connector' = 'jdbc',\n  'url' = 'jdbc:mysql://mysql:3306/plant',\n  'table-name' = 'readings',\n  'username' = '${MYSQL_CDC_USER}',\n  'password' = '${MYSQL_CDC_PASSWORD}'\n)",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("device_summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Contains(summary, "mysql-cdc") || servers["device_summary:readings"] != "" {
		t.Errorf("a batch job reads no binlog and needs no server-id (%v):\n%s", servers, summary)
	}

	deliveries := job("delivery_summary")
	src := deliveries[strings.Index(deliveries, "CREATE TEMPORARY TABLE `deliveries`"):]
	src = src[:strings.Index(src, ");")]
	for _, want := range []string{"'connector' = 'kafka',", "'key.fields' = 'reading_id',", "'scan.startup.mode' = 'earliest-offset',", "'scan.bounded.mode' = 'latest-offset'"} {
		if !strings.Contains(src, want) {
			t.Errorf("the bounded topic read lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "PRIMARY KEY") {
		t.Errorf("the kafka connector refuses a primary key:\n%s", src)
	}

	join := job("deliveries")
	if n := strings.Count(join, "'scan.read-changelog-as-append-only.enabled' = 'true'"); n != 2 {
		t.Errorf("both append-only MySQL tables are read as inserts, %d are:\n%s", n, join)
	}
	sink := join[strings.Index(join, "CREATE TEMPORARY TABLE `deliveries`"):]
	sink = sink[:strings.Index(sink, ");")]
	if !strings.Contains(sink, "'connector' = 'kafka',") || strings.Contains(sink, "scan.") || strings.Contains(sink, "group.id") {
		t.Errorf("the append-only sink is written with the kafka connector and no read options:\n%s", sink)
	}
	if w := job("site_heat"); !strings.Contains(w, "'connector' = 'upsert-kafka'") {
		t.Errorf("an upsert store stays upsert-kafka:\n%s", w)
	}

	jars, err := connectorJars(l)
	if err != nil {
		t.Fatal(err)
	}
	if !hasJar(jars, "flink-connector-jdbc") {
		t.Errorf("the sensors lab reads MySQL in a batch job, but its jars lack the JDBC connector: %v", jars)
	}
	seed, err := connectorJars(loadLab(t, "../labs/orders"))
	if err != nil {
		t.Fatal(err)
	}
	if hasJar(seed, "flink-connector-jdbc") {
		t.Errorf("the seed lab's batch jobs read only lakes, yet it gets the JDBC connector")
	}
}

// TestBoundedPostgresRead: a batch job reads a PostgreSQL store through
// JDBC in the lab's schema, as the CDC user (its driver comes inside the
// PostgreSQL CDC connector).
func TestBoundedPostgresRead(t *testing.T) {
	dir := t.TempDir()
	lab := `lab "pg_batch" {
  title = "A batch job over PostgreSQL"
}

stack {
  postgres {
    database = "plant"
  }
  kafka {}
  flink {}
}

table "readings" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "value_c" { type = "double" }
  store "postgres" {}
}

table "summary" {
  key = ["n"]
  column "n" { type = "bigint" }
  store "kafka" {}
}

job "count" {
  mode   = "batch"
  reads  = [table.readings]
  writes = table.summary
  query  = "SELECT COUNT(*) AS n FROM readings"
}
`
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	l := loadLab(t, dir)
	sql := string(flinkJob(l, l.Job("count"), serverIDs(l), ComposeFace))
	want := "'connector' = 'jdbc',\n  'url' = 'jdbc:postgresql://postgres:5432/plant',\n  'table-name' = 'public.readings',\n  'username' = '${POSTGRES_CDC_USER}',\n  'password' = '${POSTGRES_CDC_PASSWORD}'\n)"
	if !strings.Contains(sql, want) || strings.Contains(sql, "postgres-cdc") {
		t.Errorf("job SQL lacks %q or still reads the WAL:\n%s", want, sql)
	}
	jars, err := connectorJars(l)
	if err != nil {
		t.Fatal(err)
	}
	if !hasJar(jars, "flink-connector-jdbc") || !hasJar(jars, "flink-sql-connector-postgres-cdc") {
		t.Errorf("jars lack the JDBC connector or the CDC connector that carries the driver: %v", jars)
	}
}
