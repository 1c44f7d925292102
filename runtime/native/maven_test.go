package native

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/native/engines"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/labdir"
)

// renderedOrders renders labs/orders into a temporary directory and loads
// it as labgen's commands do.
func renderedOrders(t *testing.T) *labdir.Lab {
	t.Helper()
	files, err := render.Render(seedLab(t), render.Options{NoSource: true, LabgenVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := render.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	lab, err := labdir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

func TestReadLockJarsAndPOMs(t *testing.T) {
	lab := renderedOrders(t)
	lock, err := os.ReadFile(filepath.Join(lab.Dir, "labgen.lock"))
	if err != nil {
		t.Fatal(err)
	}
	jars, err := ReadLockJars(lock)
	if err != nil {
		t.Fatal(err)
	}
	var tiering bool
	for _, j := range jars {
		if len(j.SHA256) != 64 || j.Group == "" || !strings.HasSuffix(j.Path, ".jar") {
			t.Errorf("bad lock jar %+v", j)
		}
		tiering = tiering || j.Artifact == "fluss-flink-tiering"
	}
	if len(jars) < 10 || !tiering {
		t.Fatalf("lock jars: %+v", jars)
	}
	files, err := pomFiles(engineModules(lab), jars)
	if err != nil {
		t.Fatal(err)
	}
	root := string(files["pom.xml"])
	for _, m := range []string{"flink", "zookeeper", "kafka", "fluss", "fluss-paimon", "lock"} {
		if !strings.Contains(root, "<module>"+m+"</module>") {
			t.Errorf("aggregator lacks module %s:\n%s", m, root)
		}
	}
	if !strings.Contains(string(files["lock/pom.xml"]), "<artifactId>fluss-flink-tiering</artifactId>") {
		t.Errorf("lock POM:\n%s", files["lock/pom.xml"])
	}
	props, err := pomProperties(files["pom.xml"])
	if err != nil {
		t.Fatal(err)
	}
	if v := expand(props, "${paimon.version}"); v != "1.3.1" {
		t.Errorf("paimon.version = %q", v)
	}
	items, err := artifactItems(files["fluss-paimon/pom.xml"])
	if err != nil || len(items) != 5 || items[0].Artifact != "fluss-lake-paimon" || expand(props, items[0].Version) == items[0].Version {
		t.Errorf("fluss-paimon's artifacts: %+v, %v", items, err)
	}
	// Only <modules> changes: the rest of the aggregator is as written.
	orig, _ := engines.FS.ReadFile("pom.xml")
	if i := strings.Index(string(orig), "<modules>"); i < 0 || root[:i] != string(orig[:i]) || !strings.HasSuffix(root, string(orig[strings.Index(string(orig), "</modules>")+len("</modules>"):])) {
		t.Errorf("the aggregator changed outside <modules>:\n%s", root)
	}
	if _, err := ReadLockJars([]byte("[connectors]\nlib/x.jar  a:b  sha256:00\n")); err == nil {
		t.Error("a bad line was accepted")
	}
}

func TestVerifyJarMismatch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x-1.jar")
	os.WriteFile(p, []byte("not the jar"), 0o644)
	_, err := verifyJar(p, LockJar{Group: "g", Artifact: "x", Version: "1", SHA256: strings.Repeat("0", 64)})
	if err == nil || !strings.Contains(err.Error(), "labgen.lock pins") {
		t.Fatalf("err = %v", err)
	}
}

// needJVM skips without java and mvn, unless LABGEN_TEST_SERVERS=require.
func needJVM(t *testing.T) {
	t.Helper()
	_, errJ := exec.LookPath("java")
	_, errM := exec.LookPath("mvn")
	if errJ == nil && errM == nil {
		return
	}
	if os.Getenv("LABGEN_TEST_SERVERS") == "require" {
		t.Fatal("java and mvn are required (apt-get install default-jdk-headless maven)")
	}
	t.Skip("java or mvn missing")
}

func TestResolve(t *testing.T) {
	needJVM(t)
	lab := renderedOrders(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cp, err := Resolve(ctx, lab, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Flink) < 50 || len(cp.Kafka) == 0 || len(cp.ZooKeeper) == 0 || len(cp.Fluss) == 0 || len(cp.FlussPaimonPlugin) != 5 || cp.TieringJar == "" {
		t.Fatalf("class paths: flink %d kafka %d zk %d fluss %d plugin %d tiering %q",
			len(cp.Flink), len(cp.Kafka), len(cp.ZooKeeper), len(cp.Fluss), len(cp.FlussPaimonPlugin), cp.TieringJar)
	}
	start := time.Now()
	if _, err := Resolve(ctx, lab, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("a warm Resolve took %s", d)
	} else {
		t.Logf("warm Resolve: %s", d)
	}
}
