package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/labgen/labgen/internal/kubecheck"
	"github.com/labgen/labgen/render"
)

// writeBase puts a render's kubernetes/ files into a directory.
func writeBase(t *testing.T, files render.Files) string {
	t.Helper()
	dir := t.TempDir()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func namespaceOf(t *testing.T, objs []map[string]any) string {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == "Namespace" {
			return at(o, "metadata")["name"].(string)
		}
	}
	t.Fatal("the base has no Namespace")
	return ""
}

// A real kube-apiserver with the operators' CRDs accepts every render
// (server-side apply, dry run, strict field validation), and rejects
// mutated ones with its own message.
func TestServerDryRun(t *testing.T) {
	crds := kubecheck.CRDDir(t)
	s := kubecheck.StartAPIServer(t)
	if _, err := s.Kubectl("apply", "--server-side", "--field-manager=labgen-test", "-f", crds); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=120s"); err != nil {
		t.Fatal(err)
	}
	created := map[string]bool{}
	dryRun := []string{"apply", "--server-side", "--dry-run=server", "--validate=strict", "--field-manager=labgen-test"}

	for _, v := range validationVariants {
		t.Run(v.name, func(t *testing.T) {
			files := renderVariant(t, v)
			ns := namespaceOf(t, buildBase(t, files))
			if !created[ns] {
				// The namespace first: a dry run creates nothing in it.
				if _, err := s.Kubectl("create", "namespace", ns); err != nil {
					t.Fatal(err)
				}
				created[ns] = true
			}
			out, err := s.Kubectl(append(dryRun, "-k", writeBase(t, files))...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"kafka.kafka.strimzi.io/kafka serverside-applied (server dry run)", "flinkdeployment.flink.apache.org/flink serverside-applied (server dry run)"} {
				if !strings.Contains(out, want) {
					t.Errorf("kubectl's output lacks %q:\n%s", want, out)
				}
			}
		})
	}

	files := renderVariant(t, goldens[0])
	cases := []struct {
		name, kind, want string
		f                func(o map[string]any)
	}{
		{"unknown field", "StatefulSet", `.spec.template.spec.containers[name="clickhouse"].imagePullPolicyy: field not declared in schema`, func(o map[string]any) {
			firstContainer(o, "spec", "template", "spec")["imagePullPolicyy"] = "Always"
		}},
		{"wrong enum", "Deployment", `Unsupported value: "Sometimes"`, func(o map[string]any) {
			firstContainer(o, "spec", "template", "spec")["imagePullPolicy"] = "Sometimes"
		}},
		{"missing required field of a Kafka", "Kafka", `spec.kafka.listeners: Required value`, func(o map[string]any) {
			delete(at(o, "spec", "kafka"), "listeners")
		}},
		{"wrong enum of a FlinkDeployment", "FlinkDeployment", `spec.flinkVersion: Unsupported value: "v0_1"`, func(o map[string]any) {
			at(o, "spec")["flinkVersion"] = "v0_1"
		}},
		{"unknown field of a KafkaTopic", "KafkaTopic", `.spec.partition: field not declared in schema`, func(o map[string]any) {
			at(o, "spec")["partition"] = 3
		}},
	}
	for _, tc := range cases {
		t.Run("rejects "+tc.name, func(t *testing.T) {
			objs := buildBase(t, files)
			mutate(t, objs, tc.kind, tc.f)
			var b strings.Builder
			for _, o := range objs {
				y, err := yaml.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString("---\n")
				b.Write(y)
			}
			path := filepath.Join(t.TempDir(), "mutated.yaml")
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := s.Kubectl(append(dryRun, "-f", path)...)
			if err == nil {
				t.Fatalf("the API server accepted the mutated %s", tc.kind)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the API server's message lacks %q:\n%v", tc.want, err)
			}
		})
	}
}
