package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/flinksql"
	"github.com/labgen/labgen/internal/testproc"
	"github.com/labgen/labgen/render"
)

// The SQL runner builds from the rendered flink-image/ (its pom.xml and
// source, with Maven, as the Dockerfile's first stage does), and splits
// every rendered job's SQL into the statements labgen's own splitter
// (the one the SQL gateway gets them from) finds.
func TestSQLRunnerSplitsLikeLabgen(t *testing.T) {
	files := renderVariant(t, goldens[0])
	jar, cp := buildSQLRunner(t, files)

	// The job SQL as the FlinkDeployments mount it.
	sqlDir := t.TempDir()
	var scripts []string
	objs := buildBase(t, files)
	for _, o := range objs {
		if o["kind"] == "ConfigMap" && at(o, "metadata")["name"] == FlinkSQL {
			for name, text := range at(o, "data") {
				p := filepath.Join(sqlDir, name)
				if err := os.WriteFile(p, []byte(text.(string)), 0o644); err != nil {
					t.Fatal(err)
				}
				scripts = append(scripts, p)
			}
		}
	}
	if len(scripts) < 2 {
		t.Fatalf("the flink-sql ConfigMap holds %d scripts", len(scripts))
	}
	for _, script := range scripts {
		java := exec.Command("java", "-cp", jar+string(os.PathListSeparator)+cp,
			sqlRunnerClass, "--print-statements", script)
		out, err := java.Output()
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(script), err)
		}
		var got []string
		for _, s := range strings.Split(string(out), "--;\n") {
			if s = strings.TrimSpace(s); s != "" {
				got = append(got, s)
			}
		}
		text, _ := os.ReadFile(script)
		want, err := flinksql.Split(string(text))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: the runner finds %d statements, labgen %d", filepath.Base(script), len(got), len(want))
			continue
		}
		for i := range want {
			if strip(got[i]) != strip(want[i].Text) {
				t.Errorf("%s: statement %d differs:\nrunner: %s\nlabgen: %s", filepath.Base(script), i+1, got[i], want[i].Text)
			}
		}
	}
}

// buildSQLRunner builds the SQL runner from the rendered flink-image/
// (its pom.xml and source, with Maven, as the Dockerfile's first stage
// does) and returns its jar and the class path it compiled against.
func buildSQLRunner(t *testing.T, files render.Files) (jar, cp string) {
	t.Helper()
	mode := testproc.Mode(t, "kube", "the SQL runner's build")
	for _, tool := range []string{"mvn", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			testproc.Missing(t, mode, "kube: "+tool+" is needed to build the SQL runner (scripts/install-deps.sh)")
		}
	}
	dir := t.TempDir()
	for p, b := range files {
		if strings.HasPrefix(p, "flink-image/") {
			if err := os.WriteFile(filepath.Join(dir, strings.TrimPrefix(p, "flink-image/")), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The Dockerfile's layout.
	src := filepath.Join(dir, "src", "main", "java", "labgen")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "SqlRunner.java"), filepath.Join(src, "SqlRunner.java")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "target", "sql-runner.jar"), mavenClasspath(t, dir, "package")
}

// mavenClasspath runs Maven in dir (goals first) and returns the class
// path of its pom's dependencies.
func mavenClasspath(t *testing.T, dir string, goals ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "classpath.txt")
	mvn := exec.Command("mvn", append(append([]string{"-B", "-q"}, goals...), "dependency:build-classpath", "-Dmdep.outputFile="+out)...)
	mvn.Dir = dir
	if b, err := mvn.CombinedOutput(); err != nil {
		t.Fatalf("mvn %s: %v\n%s", strings.Join(goals, " "), err, b)
	}
	cp, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(cp))
}

// With --create-missing the runner skips a lake table its catalog has
// and creates one it lacks, on Flink's own table runtime (an in-memory
// catalog; the lake-tables Job runs it so against Fluss and Iceberg,
// whose second CREATE Fluss refuses once the lake holds data).
func TestSQLRunnerCreatesOnlyMissing(t *testing.T) {
	jar, _ := buildSQLRunner(t, renderVariant(t, goldens[0]))
	flink := mavenClasspath(t, filepath.Join("testdata", "flink-table"))
	script := filepath.Join(t.TempDir(), "lake_tables.sql")
	// The render's form: catalog.`database`.`table`, each under its line.
	sql := "CREATE CATALOG mem WITH ('type' = 'generic_in_memory');\n" +
		"CREATE DATABASE IF NOT EXISTS mem.`lab`;\n" +
		"CREATE TABLE mem.`lab`.`old` (a INT) WITH ('connector' = 'datagen');\n\n" +
		"-- lake table: mem.lab.old\n" +
		"CREATE TABLE IF NOT EXISTS mem.`lab`.`old` (\n  `a` INT\n)\nWITH ('connector' = 'datagen');\n\n" +
		"-- lake table: mem.lab.fresh\n" +
		"CREATE TABLE IF NOT EXISTS mem.`lab`.`fresh` (\n  `b` INT\n)\nWITH ('connector' = 'datagen');\n"
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		java := exec.Command("java", append([]string{"-cp", jar + string(os.PathListSeparator) + flink, sqlRunnerClass}, args...)...)
		out, err := java.CombinedOutput()
		if err != nil {
			t.Fatalf("SqlRunner %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := run("--create-missing", script)
	for _, want := range []string{"lake table mem.lab.old: exists, kept", "lake table mem.lab.fresh: created"} {
		if !strings.Contains(out, want) {
			t.Errorf("--create-missing: no line %q in:\n%s", want, out)
		}
	}
	if out := run(script); strings.Contains(out, "lake table") {
		t.Errorf("without --create-missing the runner decided about lake tables:\n%s", out)
	}
}

// strip drops comment lines and blank lines, which the runner skips
// before a statement and labgen keeps.
func strip(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
