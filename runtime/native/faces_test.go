package native

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/schemas"
)

// Every compose service of the registry says what stands for it on the
// native stack, in one way only, and faces names no other service.
func TestEveryServiceHasANativeFace(t *testing.T) {
	order := schemas.ServiceOrder()
	for _, name := range order {
		f, ok := faces[name]
		if !ok {
			t.Errorf("compose service %s has no native face (runtime/native/faces.go)", name)
			continue
		}
		set := 0
		for _, b := range []bool{f.add != nil, f.doneBy != "", f.skip != nil} {
			if b {
				set++
			}
		}
		if set != 1 {
			t.Errorf("native face of %s: %d of add, doneBy, skip set, want 1", name, set)
		}
	}
	known := map[string]bool{}
	for _, n := range order {
		known[n] = true
	}
	for name := range faces {
		if !known[name] {
			t.Errorf("native face for %s, which no component of the registry runs", name)
		}
	}
}

// Prepare plans the seed lab's native stack from the registry: each
// compose service in the registry's order by its face, and what does not
// run natively with the reason.
func TestPrepareFollowsTheRegistry(t *testing.T) {
	needJVM(t)
	lab := renderedOrders(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	p, err := Prepare(ctx, lab, Labgen{Path: "labgen"}, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Services {
		names = append(names, s.Name)
	}
	// The link proxy last: the stack's own instrument, there because the
	// seed lab slows a link (binlog_late), not a compose service.
	want := []string{"mysql", "kafka", "clickhouse", "zookeeper", "coordinator-server", "tablet-server",
		"jobmanager", "taskmanager", "sql-gateway", "producer", "console", LinkProxyService}
	if !slices.Equal(names, want) {
		t.Errorf("services %v, want %v", names, want)
	}
	proxy := p.Services[len(p.Services)-1]
	if got := strings.Join(proxy.Argv, " "); !strings.Contains(got, fmt.Sprintf("--link mysql_flink=127.0.0.1:%d>127.0.0.1:%d", p.Ports.LinkMySQLFlink, p.Ports.MySQL)) {
		t.Errorf("the link proxy's argv: %s", got)
	}
	if want := fmt.Sprintf("127.0.0.1:%d", p.Ports.LinkMySQLFlink); p.Face.MySQL != want {
		t.Errorf("Flink's jobs dial MySQL at %s, want the link proxy's %s", p.Face.MySQL, want)
	}
	// The supervisor accepts the order: what a service needs starts
	// before it.
	if _, err := NewSupervisor(p.Layout, p.Services); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"kafka-ui", "batch-loop"} {
		if lab.Lab.Stack.Has(schemas.ServiceComponent(name)) && p.Skipped[name] == "" {
			t.Errorf("%s runs in compose, yet the plan neither runs nor skips it: %v", name, p.Skipped)
		}
	}
	if len(p.StandIns()) == 0 {
		t.Error("no stand-ins named (MariaDB for MySQL, chdb for ClickHouse)")
	}
	// Every JVM service names the release on its class path, for the
	// record; the databases are asked by the run instead.
	for _, s := range p.Services {
		if s.Argv[0] == "java" && s.Version == "" {
			t.Errorf("%s runs on the JVM but names no version from its class path", s.Name)
		}
	}
}
