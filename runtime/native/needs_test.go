package native

import (
	"slices"
	"strings"
	"testing"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

// The native stack's needs, drawn from the registry, are those that
// faces.go and jvm.go wrote by hand before: clickhouse needs kafka (it
// applies the schema whose Kafka tables need the topics), the producer
// its source database, the console the databases it reads, the Fluss
// servers and Flink's services the one they register with.
func TestNativeNeedsFromTheRegistry(t *testing.T) {
	for _, c := range []struct {
		dir  string
		vars []schemas.VarArg
		want map[string][]string
	}{
		{dir: "../../labs/orders", want: map[string][]string{
			"mysql": nil, "kafka": nil, "clickhouse": {"kafka"},
			"zookeeper": nil, "coordinator-server": {"zookeeper"}, "tablet-server": {"coordinator-server"},
			"jobmanager": nil, "taskmanager": {"jobmanager"}, "sql-gateway": {"jobmanager"},
			"producer": {"mysql"}, "console": {"mysql", "clickhouse"},
		}},
		{dir: "../../labs/orders", vars: []schemas.VarArg{{Name: "lakes", Value: "false"}, {Name: "taskmanagers", Value: "2"}},
			want: map[string][]string{
				"mysql": nil, "kafka": nil, "clickhouse": {"kafka"},
				"jobmanager": nil, "taskmanager": {"jobmanager"}, "taskmanager-2": {"jobmanager"}, "sql-gateway": {"jobmanager"},
				"producer": {"mysql"}, "console": {"mysql", "clickhouse"},
			}},
		{dir: "../../labs/sensors", want: map[string][]string{
			"mysql": nil, "kafka": nil, "clickhouse": {"kafka"},
			"jobmanager": nil, "taskmanager": {"jobmanager"}, "sql-gateway": {"jobmanager"},
			"producer": {"mysql"}, "console": {"mysql", "clickhouse"},
		}},
		{dir: "../../labs/orders_pg", want: map[string][]string{
			"postgres": nil, "kafka": nil, "clickhouse": {"kafka"},
			"jobmanager": nil, "taskmanager": {"jobmanager"}, "sql-gateway": {"jobmanager"},
			"producer": {"postgres"}, "console": {"postgres", "clickhouse"},
		}},
		{dir: "../../docs/tutorial/bikes", want: map[string][]string{
			"mysql": nil, "kafka": nil, "clickhouse": {"kafka"},
			"jobmanager": nil, "taskmanager": {"jobmanager"}, "sql-gateway": {"jobmanager"},
			"producer": {"mysql"},
		}},
	} {
		name := strings.TrimPrefix(c.dir, "../../")
		t.Run(name, func(t *testing.T) {
			l, diags := schemas.NewParser().Load(c.dir, schemas.Options{Vars: c.vars})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			needs := nativeNeeds(l)
			// Each native service as Prepare plans it, in its order.
			var order []string
			got := map[string][]string{}
			for _, sd := range composeServices(l) {
				if faces[sd.Name].add == nil {
					continue
				}
				names := []string{sd.Name}
				if sd.Name == "taskmanager" {
					names = render.TaskManagerNames(l)
				}
				for _, n := range names {
					got[n] = needs[sd.Name]
					order = append(order, n)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("native services %v, want those of %v", order, c.want)
			}
			for svc, want := range c.want {
				if g, ok := got[svc]; !ok || !slices.Equal(g, want) {
					t.Errorf("%s needs %v (planned: %t), want %v", svc, g, ok, want)
				}
			}
			// The supervisor starts a service after those it needs.
			for i, svc := range order {
				for _, n := range got[svc] {
					if !slices.Contains(order[:i], n) {
						t.Errorf("%s needs %s, which is not planned before it", svc, n)
					}
				}
			}
		})
	}
}

// A one-shot that the native stack folds into a service names one that
// runs natively.
func TestFoldedIntoARunningFace(t *testing.T) {
	for name, f := range faces {
		if f.foldedInto == "" {
			continue
		}
		if f.doneBy == "" || faces[f.foldedInto].add == nil {
			t.Errorf("%s is folded into %s, which is no native service, or says not how (doneBy %q)", name, f.foldedInto, f.doneBy)
		}
	}
}
