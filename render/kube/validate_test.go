package kube

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/internal/kubecheck"
	"github.com/labgen/labgen/render"
)

// validationVariants are the renders checked against the schemas: the
// goldens and every other lab.
var validationVariants = append(append([]variant(nil), goldens...),
	variant{name: "sensors", lab: "sensors"}, variant{name: "orders_pg", lab: "orders_pg"})

func buildBase(t *testing.T, files render.Files) []map[string]any {
	t.Helper()
	objs, err := kubecheck.Build(files)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func objName(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	return o["kind"].(string) + "/" + md["name"].(string)
}

// Every object of every render is valid against Kubernetes' OpenAPI
// schemas and the operators' CRDs, with unknown fields rejected.
func TestValidOffline(t *testing.T) {
	c := kubecheck.NewForTest(t)
	for _, v := range validationVariants {
		t.Run(v.name, func(t *testing.T) {
			objs := buildBase(t, renderVariant(t, v))
			kinds := map[string]int{}
			for _, o := range objs {
				kinds[o["kind"].(string)]++
				for _, err := range c.Check(o) {
					t.Errorf("%s: %v", objName(o), err)
				}
			}
			for _, k := range []string{"Namespace", "Secret", "ConfigMap", "Kafka", "KafkaNodePool", "KafkaTopic", "FlinkDeployment", "StatefulSet", "Deployment", "Service"} {
				if kinds[k] == 0 {
					t.Errorf("the base has no %s", k)
				}
			}
		})
	}
}

// mutate changes the first object of a kind in place.
func mutate(t *testing.T, objs []map[string]any, kind string, f func(o map[string]any)) {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == kind {
			f(o)
			return
		}
	}
	t.Fatalf("no %s to mutate", kind)
}

func at(o map[string]any, path ...string) map[string]any {
	for _, p := range path {
		o = o[p].(map[string]any)
	}
	return o
}

func firstContainer(o map[string]any, path ...string) map[string]any {
	return at(o, path...)["containers"].([]any)[0].(map[string]any)
}

// The check rejects what an API server would: an unknown field, a wrong
// type, a missing required field in built-in kinds; an unknown field, a
// value outside an enum, a missing required field in the operators'
// resources (Kubernetes' own OpenAPI documents carry no enums).
func TestMutationsRejected(t *testing.T) {
	c := kubecheck.NewForTest(t)
	files := renderVariant(t, goldens[0])
	cases := []struct {
		name, kind, want string
		f                func(o map[string]any)
	}{
		{"unknown field in a container", "StatefulSet", "spec.template.spec.containers[0].imagePullPolicyy", func(o map[string]any) {
			firstContainer(o, "spec", "template", "spec")["imagePullPolicyy"] = "Always"
		}},
		{"wrong type in a Deployment", "Deployment", "spec.replicas", func(o map[string]any) {
			at(o, "spec")["replicas"] = "one"
		}},
		{"missing required container name", "Deployment", "name", func(o map[string]any) {
			delete(firstContainer(o, "spec", "template", "spec"), "name")
		}},
		{"unknown field in a Kafka", "Kafka", "spec.kafka.listener", func(o map[string]any) {
			at(o, "spec", "kafka")["listener"] = []any{}
		}},
		{"wrong enum in a KafkaNodePool", "KafkaNodePool", "roles", func(o map[string]any) {
			at(o, "spec")["roles"] = []any{"broker", "leader"}
		}},
		{"missing required listeners of a Kafka", "Kafka", "listeners", func(o map[string]any) {
			delete(at(o, "spec", "kafka"), "listeners")
		}},
		{"wrong enum in a FlinkDeployment", "FlinkDeployment", "flinkVersion", func(o map[string]any) {
			at(o, "spec")["flinkVersion"] = "v0_1"
		}},
		{"unknown field in a FlinkDeployment's pod template", "FlinkDeployment", "spec.podTemplate.spec.containers[0].volumeMount", func(o map[string]any) {
			firstContainer(o, "spec", "podTemplate", "spec")["volumeMount"] = []any{}
		}},
		{"unknown field in a KafkaTopic", "KafkaTopic", "spec.partition", func(o map[string]any) {
			at(o, "spec")["partition"] = 3
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := buildBase(t, files)
			mutate(t, objs, tc.kind, tc.f)
			var errs []string
			for _, o := range objs {
				if o["kind"] != tc.kind {
					continue
				}
				for _, err := range c.Check(o) {
					errs = append(errs, err.Error())
				}
			}
			if len(errs) == 0 {
				t.Fatalf("the mutated %s passed", tc.kind)
			}
			if joined := strings.Join(errs, "\n"); !strings.Contains(joined, tc.want) {
				t.Errorf("the errors do not name %s:\n%s", tc.want, joined)
			}
		})
	}
}
