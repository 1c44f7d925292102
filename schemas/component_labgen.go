package schemas

import "github.com/hashicorp/hcl/v2"

// labgen's own services: the producer, the query console and the batch
// loop, which run labgen's image (the batch loop Flink's).

// labgenMB is the memory of a labgen process.
const labgenMB = 64

// Console is labgen's read-only query console.
type Console struct {
	Port      int       `json:"port"`
	DeclRange hcl.Range `json:"-"`
}

// BatchLoop runs the batch jobs in the background, pausing after each
// attempt finishes (a pause, not a wall-clock schedule).
type BatchLoop struct {
	Pause     string    `json:"pause"`
	DeclRange hcl.Range `json:"-"`
}

var producerComponent = &ComponentDesc{
	Title:   "producer",
	Present: always,
	Services: []ServiceDesc{{Name: "producer", Step: true, When: producerRuns, Component: "mysql",
		Needs:  func(l *Lab) []Need { return []Need{healthy(l.SourceStore())} },
		Memory: func(l *Lab) Memory { return Memory{MB: labgenMB, Why: producerWhy(l)} },
		// It serves nothing: healthy while its process lives.
		Health: &Health{Test: test("kill -0 1"), Interval: sec(30), StartPeriod: sec(10), Retries: 3}}},
}

// producerWhy says what the producer's memory holds, in this lab's words:
// the follow-ups it keeps pending until their delay has passed, by the
// names of its follow blocks.
func producerWhy(l *Lab) string {
	var follows []string
	for _, p := range l.Producers {
		for _, f := range p.Follows {
			if !contains(follows, f.Name) {
				follows = append(follows, f.Name)
			}
		}
	}
	if len(follows) == 0 {
		return "labgen produce (Go)"
	}
	return "labgen produce (Go); pending " + joinList(follows, "and") + " follow-ups take bytes each"
}

var consoleComponent = &ComponentDesc{
	Name: "console", Title: "query console",
	Present: func(s *Stack) bool { return s.Console != nil },
	Services: []ServiceDesc{{Name: "console", Step: true,
		Needs:  needs(healthy("mysql"), healthy("postgres"), completed("clickhouse-init")),
		Memory: fixed(Memory{MB: labgenMB, Why: "labgen console (Go)"}),
		Health: &Health{Test: func(l *Lab) string {
			return wgetGet(l.Stack.Console.Port, "/")
		}, Interval: sec(10), StartPeriod: sec(10), Retries: 12, HTTP: "/"}}},
	Ports:  func(s *Stack) map[string]int { return map[string]int{"console": s.Console.Port} },
	schema: componentSchema("port"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		st.Console = &Console{Port: port(d, c.Attributes["port"], 8088), DeclRange: b.DefRange}
	},
}

var batchLoopComponent = &ComponentDesc{
	Name: "batch_loop", Title: "batch loop",
	Present: func(s *Stack) bool { return s.BatchLoop != nil },
	Services: []ServiceDesc{{Name: "batch-loop", Step: true, Submits: true, Needs: needs(healthy("job-submitter")),
		When:   func(l *Lab) bool { return l.Stack.Flink != nil },
		Memory: fixed(Memory{MB: flinkToolMB, Heap: flinkToolHeap, Why: "Flink's SQL client (JVM " + flinkToolHeap + ") for one bounded job at a time"}),
		Health: &Health{Test: test("test -f /tmp/batch-loop.alive && curl -fsS -o /dev/null http://jobmanager:8081/overview"),
			Interval: sec(30), StartPeriod: sec(30), Retries: 10}}},
	schema: componentSchema("pause"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		st.BatchLoop = &BatchLoop{Pause: d.duration(c.Attributes["pause"], "5m"), DeclRange: b.DefRange}
	},
}
