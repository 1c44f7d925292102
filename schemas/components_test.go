package schemas

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// The registry answers what schemas, render and the runtime used to list
// each on their own.
func TestComponentRegistry(t *testing.T) {
	l := &Lab{Producers: []*Producer{{Name: "shop"}}, Stack: &Stack{
		MySQL: &MySQL{Image: "mysql:8", Port: 3306}, Kafka: &Kafka{Image: "kafka:4", Port: 9092},
		KafkaUI: &KafkaUI{Image: "ui:1", Port: 8080}, Flink: &Flink{Image: "flink:1", UIPort: 8081, GatewayPort: 8083},
		Console: &Console{Port: 8088},
	}}
	want := []string{"mysql", "kafka", "kafka-ui", "jobmanager", "taskmanager", "sql-gateway", "producer", "console"}
	if got := l.Services(); !reflect.DeepEqual(got, want) {
		t.Errorf("services %v, want %v", got, want)
	}
	wantImages := []Image{{"mysql", "mysql:8"}, {"kafka", "kafka:4"}, {"kafka-ui", "ui:1"}, {"flink-base", "flink:1"}}
	if got := l.StackImages(); !reflect.DeepEqual(got, wantImages) {
		t.Errorf("images %v, want %v", got, wantImages)
	}
	for svc, c := range map[string]string{"producer": "mysql", "tiering": "flink", "zookeeper": "fluss", "kafka-ui": "kafka_ui", "nope": ""} {
		if got := ServiceComponent(svc); got != c {
			t.Errorf("component of %s: %q, want %q", svc, got, c)
		}
	}
	if !l.Stack.Has("kafka_ui") || l.Stack.Has("clickhouse") || l.Stack.Has("nope") {
		t.Error("Has")
	}
	if p := l.Stack.Port("flink", "gateway"); p != 8083 || l.Stack.Port("clickhouse", "http") != 0 {
		t.Errorf("ports: gateway %d", p)
	}
	// Kafka UI without Kafka does not run; neither do its images.
	l.Stack.Kafka = nil
	if l.Stack.Has("kafka_ui") || len(l.StackImages()) != 2 {
		t.Errorf("Kafka UI without Kafka: %v", l.StackImages())
	}
	if len(Components) != 11 || Component("postgres") == nil || Component("batch_loop") == nil || Component("") != nil {
		t.Errorf("components %v", Components)
	}
}

// Every service carries its memory budget; a numbered TaskManager is
// described by the first one.
func TestServiceDescriptions(t *testing.T) {
	for _, name := range ServiceOrder() {
		s := Service(name)
		if s == nil || s.Name != name {
			t.Fatalf("Service(%q) = %v", name, s)
		}
		if s.Memory == nil {
			t.Errorf("%s has no memory budget", name)
		}
	}
	if s := Service("taskmanager-3"); s == nil || s.Name != "taskmanager" {
		t.Errorf("taskmanager-3: %v", s)
	}
	for _, name := range []string{"nope", "taskmanager-x", "taskmanager-1", "kafka-2"} {
		if s := Service(name); s != nil {
			t.Errorf("Service(%q) = %s, want none", name, s.Name)
		}
	}
	if HealthPath("jobmanager") != "/overview" || HealthPath("tiering") != "" || HealthPath("nope") != "" {
		t.Error("HealthPath")
	}
}

// Every stack block is decoded by its own registry entry: a block with
// no attributes turns its component on, with enabled = false off.
func TestEveryComponentDecodes(t *testing.T) {
	for _, name := range Components {
		for _, enabled := range []bool{true, false} {
			src := fmt.Sprintf("stack {\n  %s {\n    enabled = %t\n  }\n}\n", name, enabled)
			if name == "kafka_ui" { // it shows Kafka, and runs with it only
				src = strings.Replace(src, "stack {\n", "stack {\n  kafka {}\n", 1)
			}
			f, diags := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			blocks := f.Body.(*hclsyntax.Body).Blocks
			d := &decoder{ctx: &hcl.EvalContext{}}
			st := d.decodeStack(blocks[0].AsHCLBlock())
			if d.diags.HasErrors() {
				t.Fatalf("%s: %v", name, d.diags)
			}
			if got := st.Has(name); got != enabled {
				t.Errorf("stack { %s { enabled = %t } }: Has(%q) = %t", name, enabled, name, got)
			}
			if !enabled && !slices.Contains(st.Disabled, name) {
				t.Errorf("%s: disabled, yet not in Disabled %v", name, st.Disabled)
			}
		}
	}
}
