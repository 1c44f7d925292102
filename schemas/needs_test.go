package schemas

import (
	"reflect"
	"testing"
)

// everyComponent is a lab whose stack runs every component.
func everyComponent() *Lab {
	return &Lab{Producers: []*Producer{{Name: "shop"}}, Stack: &Stack{
		MySQL: &MySQL{}, Postgres: &Postgres{}, Kafka: &Kafka{}, KafkaUI: &KafkaUI{}, ClickHouse: &ClickHouse{},
		Fluss: &Fluss{}, Flink: &Flink{}, Iceberg: &Iceberg{}, Console: &Console{}, BatchLoop: &BatchLoop{},
	}}
}

// Every need names a service of the registry, and no service waits for
// itself through others: compose refuses a cycle in depends_on, and the
// native supervisor starts a service only after what it needs.
func TestServiceNeedsFormNoCycle(t *testing.T) {
	labs := map[string]*Lab{"every component": everyComponent()}
	for _, dir := range []string{"../labs/orders", "../labs/sensors", "../labs/orders_pg", "../docs/tutorial/bikes"} {
		l, diags := NewParser().Load(dir, Options{})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		labs[dir] = l
	}
	known := map[string]bool{}
	for _, s := range ServiceOrder() {
		known[s] = true
	}
	for name, l := range labs {
		// The description's needs, before ServiceNeeds keeps those the
		// lab runs: a misspelt name would otherwise just drop out.
		graph := map[string][]string{}
		for _, s := range ServiceOrder() {
			d := Service(s)
			if d.Needs == nil || !runs(l, s) {
				continue
			}
			for _, n := range d.Needs(l) {
				if !known[n.Service] {
					t.Errorf("%s: %s needs %q, no service of the registry", name, s, n.Service)
				}
				graph[s] = append(graph[s], n.Service)
			}
		}
		// Depth first: a service met again while its needs are being
		// walked closes a cycle.
		const walking, done = 1, 2
		state := map[string]int{}
		var walk func(s string, path []string)
		walk = func(s string, path []string) {
			switch state[s] {
			case walking:
				t.Errorf("%s: cycle %v", name, append(path, s))
				return
			case done:
				return
			}
			state[s] = walking
			for _, n := range graph[s] {
				walk(n, append(path, s))
			}
			state[s] = done
		}
		for _, s := range ServiceOrder() {
			walk(s, nil)
		}
	}
}

// ServiceNeeds keeps the needs on services the lab runs.
func TestServiceNeedsOfTheLab(t *testing.T) {
	l := everyComponent()
	want := []Need{{Service: "jobmanager"}, {Service: "taskmanager"}, {Service: "mysql"}, {Service: "postgres"},
		{Service: "kafka-init", Completed: true}, {Service: "clickhouse-init", Completed: true}, {Service: "tablet-server"},
		{Service: "tiering", Completed: true, Optional: true}}
	if got := l.ServiceNeeds("job-submitter"); !reflect.DeepEqual(got, want) {
		t.Errorf("job-submitter needs %v, want %v", got, want)
	}
	// Without Kafka and Fluss: no topics to wait for, no tiering.
	l.Stack.Kafka, l.Stack.Fluss, l.Stack.MySQL = nil, nil, nil
	want = []Need{{Service: "jobmanager"}, {Service: "taskmanager"}, {Service: "postgres"}, {Service: "clickhouse-init", Completed: true}}
	if got := l.ServiceNeeds("job-submitter"); !reflect.DeepEqual(got, want) {
		t.Errorf("without Kafka and Fluss, job-submitter needs %v, want %v", got, want)
	}
	if got := l.ServiceNeeds("clickhouse-init"); !reflect.DeepEqual(got, []Need{{Service: "clickhouse"}}) {
		t.Errorf("without Kafka, clickhouse-init needs %v", got)
	}
	if got := l.ServiceNeeds("producer"); !reflect.DeepEqual(got, []Need{{Service: "postgres"}}) {
		t.Errorf("the producer of a PostgreSQL lab needs %v", got)
	}
	if got := l.ServiceNeeds("taskmanager-2"); !reflect.DeepEqual(got, []Need{{Service: "jobmanager"}}) {
		t.Errorf("taskmanager-2 needs %v", got)
	}
	if l.ServiceNeeds("mysql") != nil || l.ServiceNeeds("nope") != nil {
		t.Error("needs of a service that needs nothing, or of no service")
	}
}
