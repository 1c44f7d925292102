package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/flinksql"
	"github.com/labgen/labgen/internal/testproc"
)

// The SQL runner builds from the rendered flink-image/ (its pom.xml and
// source, with Maven, as the Dockerfile's first stage does), and splits
// every rendered job's SQL into the statements labgen's own splitter
// (the one the SQL gateway gets them from) finds.
func TestSQLRunnerSplitsLikeLabgen(t *testing.T) {
	mode := testproc.Mode(t, "kube", "the SQL runner's build")
	for _, tool := range []string{"mvn", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			testproc.Missing(t, mode, "kube: "+tool+" is needed to build the SQL runner (scripts/install-deps.sh)")
		}
	}
	files := renderVariant(t, goldens[0])
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
	mvn := exec.Command("mvn", "-B", "-q", "package", "dependency:build-classpath", "-Dmdep.outputFile=classpath.txt")
	mvn.Dir = dir
	if out, err := mvn.CombinedOutput(); err != nil {
		t.Fatalf("mvn package: %v\n%s", err, out)
	}
	cp, err := os.ReadFile(filepath.Join(dir, "classpath.txt"))
	if err != nil {
		t.Fatal(err)
	}

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
		java := exec.Command("java", "-cp", filepath.Join(dir, "target", "sql-runner.jar")+string(os.PathListSeparator)+strings.TrimSpace(string(cp)),
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
