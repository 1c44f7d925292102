package kube

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/golden"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

var update = flag.Bool("update", false, "rewrite golden files")

// variant is a lab rendered for Kubernetes.
type variant struct {
	name string
	lab  string
	vars []schemas.VarArg
	opts Options
}

// goldens are kept in testdata/<name>.txtar.
var goldens = []variant{
	{name: "orders", lab: "orders"},
	{name: "orders_tm3", lab: "orders", vars: []schemas.VarArg{{Name: "taskmanagers", Value: "3"}}, opts: Options{Brokers: 3}},
	{name: "orders_small", lab: "orders", vars: []schemas.VarArg{{Name: "lakes", Value: "false"}}},
}

// renderVariant renders a lab with its Kubernetes face and returns the
// files of kubernetes/.
func renderVariant(t testing.TB, v variant) render.Files {
	t.Helper()
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "..", "labs", v.lab), schemas.Options{Vars: v.vars})
	if diags.HasErrors() {
		t.Fatalf("loading %s: %s", v.lab, diags.Error())
	}
	files, err := render.Render(lab, render.Options{LabgenVersion: "test", NoSource: true, Targets: []render.Target{Target(v.opts)}})
	if err != nil {
		t.Fatal(err)
	}
	out := render.Files{}
	for p, b := range files {
		if strings.HasPrefix(p, Dir) {
			out[strings.TrimPrefix(p, Dir)] = b
		}
	}
	if len(out) == 0 {
		t.Fatal("the render wrote nothing under " + Dir)
	}
	if _, ok := files["labgen.lock"]; !ok || !bytes.Contains(files["labgen.lock"], []byte(Dir+"kustomization.yaml")) {
		t.Error("labgen.lock does not list the Kubernetes base")
	}
	return out
}

// TestGolden compares the Kubernetes base with testdata/<variant>.txtar.
// Run `go test ./render/kube -update` to rewrite them, and review the diff.
func TestGolden(t *testing.T) {
	for _, v := range goldens {
		t.Run(v.name, func(t *testing.T) {
			golden.Txtar(t, filepath.Join("testdata", v.name+".txtar"),
				"Kubernetes base of the seed lab ("+v.name+"); go test ./render/kube -update rewrites this file.\n", renderVariant(t, v), *update)
		})
	}
}

// The variables reach the objects: three TaskManagers in the session
// cluster and three brokers; without lakes no Fluss object and no
// warehouse.
func TestVariants(t *testing.T) {
	tm3 := renderVariant(t, goldens[1])
	if !strings.Contains(string(tm3["flink.yaml"]), "    replicas: 3\n") {
		t.Error("taskmanagers=3: no FlinkDeployment with three TaskManagers")
	}
	if !strings.Contains(string(tm3["kafka.yaml"]), "  replicas: 3\n") {
		t.Error("-brokers 3: the node pool does not have three replicas")
	}
	small := renderVariant(t, goldens[2])
	for p, b := range small {
		if p == "lab-files.yaml" {
			continue // lab.json tells of components the lab could run
		}
		for _, fluss := range []string{"coordinator-server", "tablet-server", "zookeeper", "tiering", "persistentVolumeClaim:\n          claimName: warehouse"} {
			if strings.Contains(string(b), fluss) {
				t.Errorf("lakes=false: %s names %s", p, fluss)
			}
		}
	}
}

// Every lab renders for Kubernetes, the same bytes twice.
func TestEveryLab(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("..", "..", "labs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			a := renderVariant(t, variant{lab: d.Name()})
			b := renderVariant(t, variant{lab: d.Name()})
			for p := range a {
				if !bytes.Equal(a[p], b[p]) {
					t.Errorf("%s differs between two renders", p)
				}
			}
		})
	}
}

// The storage and registry options reach the objects: the shared claims'
// class and access mode, and every image of the lab's own.
func TestStorageAndRegistryOptions(t *testing.T) {
	v := variant{name: "options", lab: "orders", opts: Options{StorageClass: "standard", SingleNode: true, Registry: "localhost:5001/"}}
	files := renderVariant(t, v)
	storage := string(files["storage.yaml"])
	for _, want := range []string{"storageClassName: standard", "- ReadWriteOnce"} {
		if !strings.Contains(storage, want) {
			t.Errorf("storage.yaml has no %q:\n%s", want, storage)
		}
	}
	if strings.Contains(storage, "ReadWriteMany") {
		t.Error("-single-node: a shared claim is still ReadWriteMany")
	}
	objs := buildBase(t, files)
	refs := map[string][]string{}
	for _, o := range objs {
		references(o, refs)
	}
	registry := 0
	for _, im := range refs["image"] {
		if strings.HasPrefix(im, "localhost:5001/labgen-") {
			registry++
		} else if strings.HasPrefix(im, "labgen-") {
			t.Errorf("image %s is not from the registry", im)
		}
	}
	if registry == 0 {
		t.Error("no image comes from the registry")
	}
	// Default: ReadWriteMany, the cluster's default class.
	def := string(renderVariant(t, goldens[0])["storage.yaml"])
	if !strings.Contains(def, "- ReadWriteMany") || strings.Contains(def, "storageClassName") {
		t.Errorf("default storage.yaml:\n%s", def)
	}
}

// A first apply converges: the lake tables are a Job of their own (no
// streaming job runs lake_tables.sql, which an application cluster would
// run again at every JobManager start), each job's pods wait for what its
// SQL reads and for the Job's file, and the gateway mounts the warehouse.
// Without lakes there is neither Job nor waiting for it.
func TestFirstApplyOrder(t *testing.T) {
	for _, v := range []variant{goldens[0], goldens[2]} {
		lakes := v.name == "orders"
		objs := buildBase(t, renderVariant(t, v))
		var lakeJob string
		for _, o := range objs {
			if o["kind"] == "Job" && strings.HasPrefix(at(o, "metadata")["name"].(string), "lake-tables-") {
				lakeJob = at(o, "metadata")["name"].(string)
			}
		}
		if lakes != (lakeJob != "") {
			t.Errorf("%s: lake-tables Job %q", v.name, lakeJob)
		}
		jobs := 0
		for _, o := range objs {
			name := at(o, "metadata")["name"].(string)
			switch {
			case o["kind"] == "FlinkDeployment" && strings.HasPrefix(name, "job-"):
				jobs++
				spec := at(o, "spec")
				if args := fmt.Sprint(at(o, "spec", "job")["args"]); strings.Contains(args, "lake_tables") {
					t.Errorf("%s: %s runs lake_tables.sql at each start: %s", v.name, name, args)
				}
				init := fmt.Sprint(at(spec, "podTemplate", "spec")["initContainers"])
				for _, want := range []string{Face.MySQL, Face.Kafka} {
					if !strings.Contains(init, want) {
						t.Errorf("%s: %s does not wait for %s: %s", v.name, name, want, init)
					}
				}
				if waits := strings.Contains(init, "waiting for the lake tables"); waits != lakes || (lakes && !strings.Contains(init, lakeJob)) {
					t.Errorf("%s: %s waits for the lake tables: %v (Job %q)", v.name, name, waits, lakeJob)
				}
			case o["kind"] == "Deployment" && name == "sql-gateway":
				if mounts := fmt.Sprint(at(o, "spec", "template", "spec")["containers"]); lakes != strings.Contains(mounts, "/warehouse") {
					t.Errorf("%s: the gateway mounts /warehouse: %v", v.name, !lakes)
				}
			}
		}
		if jobs == 0 {
			t.Errorf("%s: no streaming job", v.name)
		}
	}
}

// The init container's script really waits: run with bash against a local
// listener and a marker file (in place of the cluster's addresses and the
// warehouse), it waits while the port is closed and the file missing, and
// ends once both are there.
func TestWaitScriptWaits(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	objs := buildBase(t, renderVariant(t, goldens[0]))
	var script string
	for _, o := range objs {
		if o["kind"] == "FlinkDeployment" && at(o, "metadata")["name"] == "job-order-wide" {
			init := at(o, "spec", "podTemplate", "spec")["initContainers"].([]any)[0].(map[string]any)
			script = init["command"].([]any)[2].(string)
		}
	}
	if script == "" {
		t.Fatal("job-order-wide has no wait-for-dependencies script")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // closed: the script must wait
	marker := filepath.Join(t.TempDir(), "lake-tables-done")
	local := regexp.MustCompile(`for a in [^;]+;`).ReplaceAllString(script, "for a in "+addr+";")
	local = regexp.MustCompile(`/warehouse/\.labgen/lake-tables-[0-9a-f]+`).ReplaceAllString(local, marker)
	local = strings.ReplaceAll(local, "sleep 3", "sleep 0.1")
	if local == script {
		t.Fatal("nothing to replace in the script")
	}
	cmd := exec.Command("bash", "-c", local)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	step := func(what string) {
		select {
		case err := <-done:
			t.Fatalf("the script ended %s (%v):\n%s", what, err, out.String())
		case <-time.After(500 * time.Millisecond):
		}
	}
	step("while the port was closed")
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	step("before the lake tables' file was there")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the script failed: %v\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the script still waits with the port open and the file there:\n%s", out.String())
	}
	for _, want := range []string{"waiting for " + addr, addr + " answers", "waiting for the lake tables"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the script never said %q:\n%s", want, out.String())
		}
	}
}
