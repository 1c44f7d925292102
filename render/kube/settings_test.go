package kube

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

// objectsOf splits a rendered file into its objects.
func objectsOf(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// TestFlinkConfigurationIsTheLabsSettings holds every FlinkDeployment's
// flinkConfiguration to the one source, render.FlinkSettings: each key
// has the source's value, or is one the operator sets (flinkConfigDropped,
// each a key of the source), or the cluster's slots; the rest is
// operatorConfiguration.
func TestFlinkConfigurationIsTheLabsSettings(t *testing.T) {
	for _, v := range goldens {
		t.Run(v.name, func(t *testing.T) {
			lab, diags := schemas.NewParser().Load(filepath.Join("..", "..", "labs", v.lab), schemas.Options{Vars: v.vars})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			source := render.FlinkSettings(lab)
			want := source.Map()
			for _, k := range flinkConfigDropped {
				if _, ok := want[k]; !ok {
					t.Errorf("dropped key %s is not one of the lab's Flink settings (renamed there?)", k)
				}
			}
			if _, ok := want[flinkSlotsKey]; !ok {
				t.Errorf("%s is not one of the lab's Flink settings", flinkSlotsKey)
			}
			n := 0
			for _, o := range objectsOf(t, renderVariant(t, v)["flink.yaml"]) {
				if o["kind"] != "FlinkDeployment" {
					continue
				}
				n++
				name := o["metadata"].(map[string]any)["name"]
				conf := o["spec"].(map[string]any)["flinkConfiguration"].(map[string]any)
				for _, s := range source {
					got, ok := conf[s.Key]
					switch {
					case contains(flinkConfigDropped, s.Key):
						if ok {
							t.Errorf("%s: %s is set, though the operator sets it", name, s.Key)
						}
					case s.Key == flinkSlotsKey:
						if !ok {
							t.Errorf("%s: no %s", name, s.Key)
						}
					case got != s.Text():
						t.Errorf("%s: %s is %v, the lab's settings say %q", name, s.Key, got, s.Text())
					}
				}
				for k, got := range conf {
					if _, ok := want[k]; !ok && operatorConfiguration[k] != got {
						t.Errorf("%s: %s: %v is neither a lab setting nor the operator's", name, k, got)
					}
				}
			}
			if n == 0 {
				t.Fatal("no FlinkDeployment")
			}
		})
	}
}

// TestFlussPropertiesAreTheLabsSettings holds each Fluss server's
// FLUSS_PROPERTIES to render.FlussSettings: the source's keys with their
// values, but the listeners (bind.listeners on every address, plus
// advertised.listeners) and the tablet server's id, which its command
// appends from the pod's ordinal.
func TestFlussPropertiesAreTheLabsSettings(t *testing.T) {
	v := goldens[0]
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "..", "labs", v.lab), schemas.Options{Vars: v.vars})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	files := renderVariant(t, v)
	for _, name := range []string{"coordinator-server", "tablet-server"} {
		source := render.FlussSettings(lab, name)
		for _, k := range []string{flussListeners, render.FlussServerID} {
			if _, ok := source.Value(k); !ok && (k != render.FlussServerID || name == "tablet-server") {
				t.Errorf("%s: overridden key %s is not one of the lab's Fluss settings (renamed there?)", name, k)
			}
		}
		var props, command string
		for _, o := range objectsOf(t, files[name+".yaml"]) {
			if o["kind"] != "StatefulSet" {
				continue
			}
			c := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			for _, e := range c["env"].([]any) {
				if e.(map[string]any)["name"] == "FLUSS_PROPERTIES" {
					props = e.(map[string]any)["value"].(string)
				}
			}
			cmd := c["command"].([]any)
			command = cmd[len(cmd)-1].(string)
		}
		got := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(props), "\n") {
			k, val, _ := strings.Cut(line, ": ")
			got[k] = val
		}
		for _, s := range source {
			switch s.Key {
			case flussListeners:
				if got[s.Key] != "FLUSS://0.0.0.0:9123" || !strings.Contains(got[flussAdvertised], name+"-hs") {
					t.Errorf("%s: listeners %q, advertised %q", name, got[s.Key], got[flussAdvertised])
				}
			case render.FlussServerID:
				if _, ok := got[s.Key]; ok || !strings.Contains(command, s.Key+": ${POD_NAME##*-}") {
					t.Errorf("%s: the id is not the pod's ordinal:\n%s\n%s", name, props, command)
				}
			default:
				if got[s.Key] != s.Text() {
					t.Errorf("%s: %s is %q, the lab's settings say %q", name, s.Key, got[s.Key], s.Text())
				}
			}
		}
		if len(got) != len(source.Without(render.FlussServerID))+1 {
			t.Errorf("%s: FLUSS_PROPERTIES has keys the lab's settings lack:\n%s", name, props)
		}
	}
}

// TestReadmeMemoryIsTheObjectsRequests reads the running objects'
// memory requests back from the rendered YAML and checks the README's
// total against them: a quantity requestMB cannot count (text, not
// mebibytes or flinkMB) makes the total fall short.
func TestReadmeMemoryIsTheObjectsRequests(t *testing.T) {
	for _, v := range goldens {
		t.Run(v.name, func(t *testing.T) {
			files := renderVariant(t, v)
			mib := func(q any) int {
				s := fmt.Sprint(q)
				n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(s, "Mi"), "m"))
				if err != nil {
					t.Fatalf("memory %q", s)
				}
				return n
			}
			replicas := func(m map[string]any) int {
				if n, ok := m["replicas"].(float64); ok {
					return int(n)
				}
				return 1
			}
			total := 0
			for p, b := range files {
				if !strings.HasSuffix(p, ".yaml") || p == "kustomization.yaml" || strings.Contains(p, "/") {
					continue
				}
				for _, o := range objectsOf(t, b) {
					spec, _ := o["spec"].(map[string]any)
					switch o["kind"] {
					case "Deployment", "StatefulSet":
						pod := spec["template"].(map[string]any)["spec"].(map[string]any)
						for _, c := range pod["containers"].([]any) {
							if res, ok := c.(map[string]any)["resources"].(map[string]any); ok {
								total += replicas(spec) * mib(res["requests"].(map[string]any)["memory"])
							}
						}
					case "FlinkDeployment":
						for _, part := range []string{"jobManager", "taskManager"} {
							p := spec[part].(map[string]any)
							total += replicas(p) * mib(p["resource"].(map[string]any)["memory"])
						}
					case "KafkaNodePool":
						total += replicas(spec) * mib(spec["resources"].(map[string]any)["requests"].(map[string]any)["memory"])
					}
				}
			}
			if want := fmt.Sprintf("(%d MiB;", total); !strings.Contains(string(files["README.md"]), want) {
				t.Errorf("README.md does not say %s:\n%s", want, files["README.md"][:400])
			}
		})
	}
}

// TestStrimziConfigIsTheLabsSettings holds the Kafka's spec.kafka.config
// to render.KafkaSettings: each key with the source's value, or one
// Strimzi manages (each a key of the source), or replicated over the
// brokers (kafkaReplication).
func TestStrimziConfigIsTheLabsSettings(t *testing.T) {
	for _, v := range goldens {
		t.Run(v.name, func(t *testing.T) {
			lab, diags := schemas.NewParser().Load(filepath.Join("..", "..", "labs", v.lab), schemas.Options{Vars: v.vars})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			source := render.KafkaSettings(lab)
			for _, k := range strimziManaged {
				if _, ok := source.Value(k); !ok {
					t.Errorf("managed key %s is not one of the lab's Kafka settings (renamed there?)", k)
				}
			}
			brokers := max(1, v.opts.Brokers)
			replication := kafkaReplication(min(brokers, 3), max(1, min(brokers, 3)-1))
			var config map[string]any
			for _, o := range objectsOf(t, renderVariant(t, v)["kafka.yaml"]) {
				if o["kind"] == "Kafka" {
					config = o["spec"].(map[string]any)["kafka"].(map[string]any)["config"].(map[string]any)
				}
			}
			if config == nil {
				t.Fatal("no Kafka")
			}
			for _, s := range source {
				got, ok := config[s.Key]
				switch {
				case contains(strimziManaged, s.Key):
					if ok {
						t.Errorf("%s is set, though Strimzi sets it", s.Key)
					}
				case replication[s.Key] != 0:
					if fmt.Sprint(got) != fmt.Sprint(replication[s.Key]) {
						t.Errorf("%s is %v, want %d", s.Key, got, replication[s.Key])
					}
				case fmt.Sprint(got) != s.Text():
					t.Errorf("%s is %v, the lab's settings say %q", s.Key, got, s.Text())
				}
			}
			for k, got := range config {
				if _, ok := source.Value(k); !ok && fmt.Sprint(got) != fmt.Sprint(replication[k]) {
					t.Errorf("%s: %v is neither a lab setting nor a replication one", k, got)
				}
			}
		})
	}
}

// TestStateBackendReachesTheOperator: every FlinkDeployment runs the lab's
// state backend.
func TestStateBackendReachesTheOperator(t *testing.T) {
	v := variant{name: "orders_rocksdb", lab: "orders", vars: []schemas.VarArg{{Name: "state_backend", Value: "rocksdb"}}}
	n := 0
	for _, o := range objectsOf(t, renderVariant(t, v)["flink.yaml"]) {
		if o["kind"] != "FlinkDeployment" {
			continue
		}
		n++
		conf := o["spec"].(map[string]any)["flinkConfiguration"].(map[string]any)
		if conf["state.backend.type"] != "rocksdb" || conf["state.backend.incremental"] != "true" {
			t.Errorf("%v: state.backend.type %v, state.backend.incremental %v", o["metadata"].(map[string]any)["name"], conf["state.backend.type"], conf["state.backend.incremental"])
		}
	}
	if n == 0 {
		t.Fatal("no FlinkDeployment")
	}
}
