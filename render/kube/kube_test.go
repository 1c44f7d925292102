package kube

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
