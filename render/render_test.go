package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/labgen/labgen/flinksql"
	"github.com/labgen/labgen/internal/golden"
	"github.com/labgen/labgen/schemas"
)

var update = flag.Bool("update", false, "rewrite golden files")

// variants are the renderings kept as goldens: the seed lab, a faster one,
// and one without the lake components.
var variants = []struct {
	name string
	vars []schemas.VarArg
}{
	{"orders", nil},
	{"orders_fast", []schemas.VarArg{{Name: "order_rate", Value: "50"}, {Name: "payment_delay", Value: "10s"}}},
	{"orders_small", []schemas.VarArg{{Name: "lakes", Value: "false"}}},
}

func loadSeed(t testing.TB, vars []schemas.VarArg) *schemas.Lab {
	t.Helper()
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders"), schemas.Options{Vars: vars})
	if diags.HasErrors() {
		t.Fatalf("loading the seed lab: %s", diags.Error())
	}
	return lab
}

// goldenDir is where the goldens are rendered to: a fixed path, so that
// their compose project (named after it) does not change from run to run.
const goldenDir = "/home/lab/out/orders"

func renderSeed(t testing.TB, vars []schemas.VarArg) Files {
	t.Helper()
	files, err := Render(loadSeed(t, vars), Options{LabgenVersion: "test", NoSource: true, Dir: goldenDir})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGolden compares every rendered file with testdata/<variant>.txtar.
// Run `go test ./render -update` to rewrite them, and review the diff.
func TestGolden(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			golden.Txtar(t, filepath.Join("testdata", v.name+".txtar"),
				"Rendered seed lab ("+v.name+"); go test ./render -update rewrites this file.\n", renderSeed(t, v.vars), *update)
		})
	}
}

func TestDeterministic(t *testing.T) {
	a, b := renderSeed(t, nil), renderSeed(t, nil)
	if len(a) != len(b) {
		t.Fatalf("two renders gave %d and %d files", len(a), len(b))
	}
	for p := range a {
		if !bytes.Equal(a[p], b[p]) {
			t.Errorf("%s differs between two renders of the same lab", p)
		}
	}
}

// TestVariableChangesOnlyWhatItShould renders with another order rate:
// only the resolved lab, the runbook's variable table and the lock may
// change.
func TestVariableChangesOnlyWhatItShould(t *testing.T) {
	a := renderSeed(t, nil)
	b := renderSeed(t, []schemas.VarArg{{Name: "order_rate", Value: "50"}})
	var changed []string
	for p := range a {
		if !bytes.Equal(a[p], b[p]) {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	want := []string{"lab.json", "labgen.lock", "runbook.md"}
	if strings.Join(changed, " ") != strings.Join(want, " ") {
		t.Errorf("changing order_rate changed %v, want exactly %v", changed, want)
	}
	if !bytes.Contains(b["lab.json"], []byte(`"rate": 50`)) {
		t.Errorf("lab.json does not carry the new rate")
	}
}

var (
	createdRE = regexp.MustCompile("(?i)CREATE\\s+(?:TEMPORARY\\s+)?(?:TABLE|VIEW)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?([`\\w.]+)")
	usedRE    = regexp.MustCompile("(?i)\\b(?:FROM|JOIN|INSERT\\s+INTO)\\s+([`\\w.]+)")
)

// TestFlinkJobsAreComplete checks that every rendered job splits into
// complete statements and defines every table it reads or writes.
func TestFlinkJobsAreComplete(t *testing.T) {
	for _, v := range variants {
		files := renderSeed(t, v.vars)
		// Lake tables are defined once, by lake_tables.sql, which runs
		// before the jobs; a job only names them.
		lake := map[string]bool{}
		if b, ok := files[LakeTablesFile]; ok {
			stmts, err := flinksql.Split(string(b))
			if err != nil {
				t.Fatalf("%s/%s: %v", v.name, LakeTablesFile, err)
			}
			for _, s := range stmts {
				for _, m := range createdRE.FindAllStringSubmatch(s.Text, -1) {
					lake[strings.ReplaceAll(m[1], "`", "")] = true
				}
			}
		}
		n := 0
		for _, p := range files.Paths() {
			if !strings.HasPrefix(p, "sql/flink/") || p == LakeTablesFile {
				continue
			}
			n++
			stmts, err := flinksql.Split(string(files[p]))
			if err != nil {
				t.Errorf("%s/%s: %v", v.name, p, err)
				continue
			}
			defined := map[string]bool{}
			for name := range lake {
				defined[name] = true
			}
			var kinds []string
			for _, s := range stmts {
				kinds = append(kinds, s.Keyword())
				if regexp.MustCompile(`(?i)^\s*CREATE\s+TABLE\b`).MatchString(commentRE.ReplaceAllString(s.Text, "")) {
					t.Errorf("%s/%s line %d: a job creates a lake table (Fluss refuses that once the table holds data); lake_tables.sql does", v.name, p, s.Line)
				}
				for _, m := range createdRE.FindAllStringSubmatch(s.Text, -1) {
					defined[strings.ReplaceAll(m[1], "`", "")] = true
				}
			}
			for _, s := range stmts {
				text := commentRE.ReplaceAllString(s.Text, "")
				for _, m := range usedRE.FindAllStringSubmatch(text, -1) {
					name := strings.ReplaceAll(m[1], "`", "")
					if strings.HasPrefix(name, "(") || isAlias(name) {
						continue
					}
					if !defined[name] {
						t.Errorf("%s/%s line %d: uses %s, which the file does not define", v.name, p, s.Line, name)
					}
				}
			}
			last := kinds[len(kinds)-1]
			if last != "INSERT" && last != "EXECUTE" {
				t.Errorf("%s/%s: ends with %s, not with the job's INSERT", v.name, p, last)
			}
		}
		if n == 0 {
			t.Errorf("%s: no Flink job rendered", v.name)
		}
	}
}

// TestFlinkConfigJava17 checks that the rendered config.yaml, which replaces
// the image's own, keeps the Java 17 options Flink 1.20.1 ships with.
func TestFlinkConfigJava17(t *testing.T) {
	files := renderSeed(t, nil)
	conf := string(files["flink/config.yaml"])
	want := "env.java.opts.all: " + strings.Join(FlinkJava17Opts, " ") + "\n"
	if !strings.Contains(conf, want) {
		t.Fatalf("flink/config.yaml lacks %q:\n%s", want, conf)
	}
	// env.java.opts.all of flink-dist/src/main/resources/config.yaml in
	// apache/flink, copied as it is.
	const stock = "--add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"
	if got := strings.Join(FlinkJava17Opts, " "); got != stock {
		t.Errorf("FlinkJava17Opts is not Flink 1.20.1's list:\ngot  %s\nwant %s", got, stock)
	}
}

var commentRE = regexp.MustCompile(`(?m)--[^\n]*$`)

// isAlias skips names that are SQL keywords following FROM in subqueries.
func isAlias(name string) bool {
	switch strings.ToUpper(name) {
	case "SELECT", "LATERAL", "UNNEST", "TABLE":
		return true
	}
	return false
}

func TestWriteReplacesAndKeepsRecords(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, renderSeed(t, nil)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "records", "r1"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "records", "r1", "record.md"), []byte("kept"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)

	// Drop jobs from the lab to see their stale files go away.
	lab := loadSeed(t, nil)
	lab.Jobs = lab.Jobs[:1]
	files, err := Render(lab, Options{NoSource: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"records/r1/record.md", "notes.txt", "sql/flink/order_wide.sql"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s should still exist: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sql", "flink", "hourly_sales.sql")); !os.IsNotExist(err) {
		t.Errorf("sql/flink/hourly_sales.sql is no longer rendered and should have been removed (err %v)", err)
	}
}

// BenchmarkRender measures loading and rendering the seed lab, labgen's
// own source included: go test ./render -run '^$' -bench Render
func BenchmarkRender(b *testing.B) {
	for i := 0; i < b.N; i++ {
		lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders"), schemas.Options{})
		if diags.HasErrors() {
			b.Fatal(diags.Error())
		}
		if _, err := Render(lab, Options{LabgenVersion: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
