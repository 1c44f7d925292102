package schemas

import "github.com/hashicorp/hcl/v2"

// ComponentDesc is one component of the stack, described once: its
// stack block, the compose services it runs (in the order every listing
// uses), the images it pulls and the host ports it publishes. schemas
// (Has, Services, which component a service needs), render (the order of
// compose's services, the lock's and lab.json's images) and the runtime
// (the record's images, endpoints, the native stack's ports) read it
// instead of knowing the components themselves.
type ComponentDesc struct {
	// Name is its stack block ("mysql", "kafka_ui"); empty for what is
	// not a block of its own (the producer, labgen's image).
	Name string
	// Title names it for people.
	Title string
	// Present tells whether the stack runs it.
	Present func(*Stack) bool
	// Services are the compose services it may run, in order.
	Services []ServiceDesc
	// Images are the images it pulls or builds on, when it runs.
	Images func(*Lab) []Image
	// Ports are the host ports it publishes on 127.0.0.1, by name, when
	// it runs.
	Ports func(*Stack) map[string]int
	// decode reads its stack block into the Stack (components older than
	// the registry are still decoded by decodeComponent's switch).
	decode func(d *decoder, st *Stack, b *hcl.Block, at hcl.Attributes)
	// schema is its stack block's body, with decode.
	schema *hcl.BodySchema
}

// ServiceDesc is a compose service of a component.
type ServiceDesc struct {
	Name string
	// Step tells that a compose step may name it (it runs for as long as
	// the stack does; one-shot helpers such as kafka-init do not).
	Step bool
	// When, if set, is what else the service needs besides its
	// component.
	When func(*Lab) bool
	// Component is the block that must be in the stack for the service
	// to run (the producer's: mysql); empty means its own component's.
	Component string
}

// Image is an image the stack pulls, or builds on.
type Image struct {
	// Role says what it is for: a service's name, or flink-base,
	// labgen-build, labgen-runtime for the bases of the built images.
	Role string `json:"role"`
	Ref  string `json:"ref"`
}

// ComponentRegistry lists every component in the order of the stack's
// services; each adds its own entry (components_*.go).
var ComponentRegistry = []*ComponentDesc{
	mysqlComponent, postgresComponent, kafkaComponent, kafkaUIComponent, clickhouseComponent, flussComponent,
	flinkComponent, icebergComponent, producerComponent, consoleComponent, batchLoopComponent,
}

// Components are the stack's blocks (see ComponentRegistry).
var Components = func() []string {
	var out []string
	for _, c := range ComponentRegistry {
		if c.Name != "" {
			out = append(out, c.Name)
		}
	}
	return out
}()

// Component is the description of a stack block, or nil.
func Component(name string) *ComponentDesc {
	for _, c := range ComponentRegistry {
		if c.Name == name && name != "" {
			return c
		}
	}
	return nil
}

// Has tells whether the stack runs a component (see Components).
func (s *Stack) Has(component string) bool {
	c := Component(component)
	return c != nil && c.Present(s)
}

// ServiceOrder lists every compose service a stack may run, in the order
// listings use (compose.yaml itself sorts them by name).
func ServiceOrder() []string {
	var out []string
	for _, c := range ComponentRegistry {
		for _, s := range c.Services {
			out = append(out, s.Name)
		}
	}
	return out
}

// Services are the compose services the stack runs, which compose steps
// may name. The producer runs when the lab has producers.
func (l *Lab) Services() []string {
	var out []string
	for _, c := range ComponentRegistry {
		if !c.Present(l.Stack) {
			continue
		}
		for _, s := range c.Services {
			if s.Step && (s.When == nil || s.When(l)) {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// ServiceComponent is the stack block a compose service needs ("" when
// no component runs it).
func ServiceComponent(service string) string {
	for _, c := range ComponentRegistry {
		for _, s := range c.Services {
			if s.Name != service {
				continue
			}
			if s.Component != "" {
				return s.Component
			}
			return c.Name
		}
	}
	return ""
}

// StackImages are the images of the stack's components in the registry's
// order (render adds the bases of the images it builds for labgen's own
// services and writes them all into lab.json's stack.images).
func (l *Lab) StackImages() []Image {
	var out []Image
	for _, c := range ComponentRegistry {
		if c.Images != nil && c.Present(l.Stack) {
			for _, im := range c.Images(l) {
				if im.Ref != "" {
					out = append(out, im)
				}
			}
		}
	}
	return out
}

// Port is a host port a component publishes (0 when the stack does not
// run it).
func (s *Stack) Port(component, name string) int {
	c := Component(component)
	if c == nil || c.Ports == nil || !c.Present(s) {
		return 0
	}
	return c.Ports(s)[name]
}

// producerRuns tells whether the lab's producer runs: it has producers,
// and a store to write them to.
func producerRuns(l *Lab) bool { return len(l.Producers) > 0 && l.SourceStore() != "" }

func always(*Stack) bool { return true }

// ProducerRuns tells whether the lab's producer runs.
func (l *Lab) ProducerRuns() bool { return producerRuns(l) }

func images(pairs ...string) []Image {
	var out []Image
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Image{Role: pairs[i], Ref: pairs[i+1]})
	}
	return out
}

var mysqlComponent = &ComponentDesc{
	Name: "mysql", Title: "MySQL",
	Present:  func(s *Stack) bool { return s.MySQL != nil },
	Services: []ServiceDesc{{Name: "mysql", Step: true}},
	Images:   func(l *Lab) []Image { return images("mysql", l.Stack.MySQL.Image) },
	Ports:    func(s *Stack) map[string]int { return map[string]int{"mysql": s.MySQL.Port} },
}

var kafkaComponent = &ComponentDesc{
	Name: "kafka", Title: "Kafka",
	Present:  func(s *Stack) bool { return s.Kafka != nil },
	Services: []ServiceDesc{{Name: "kafka", Step: true}, {Name: "kafka-init"}},
	Images:   func(l *Lab) []Image { return images("kafka", l.Stack.Kafka.Image) },
	Ports:    func(s *Stack) map[string]int { return map[string]int{"kafka": s.Kafka.Port} },
}

var kafkaUIComponent = &ComponentDesc{
	Name: "kafka_ui", Title: "Kafka UI",
	// Kafka UI shows Kafka: without it, it does not run.
	Present:  func(s *Stack) bool { return s.KafkaUI != nil && s.Kafka != nil },
	Services: []ServiceDesc{{Name: "kafka-ui", Step: true}},
	Images:   func(l *Lab) []Image { return images("kafka-ui", l.Stack.KafkaUI.Image) },
	Ports:    func(s *Stack) map[string]int { return map[string]int{"ui": s.KafkaUI.Port} },
}

var clickhouseComponent = &ComponentDesc{
	Name: "clickhouse", Title: "ClickHouse",
	Present:  func(s *Stack) bool { return s.ClickHouse != nil },
	Services: []ServiceDesc{{Name: "clickhouse", Step: true}, {Name: "clickhouse-init"}},
	Images:   func(l *Lab) []Image { return images("clickhouse", l.Stack.ClickHouse.Image) },
	Ports: func(s *Stack) map[string]int {
		return map[string]int{"http": s.ClickHouse.HTTPPort, "tcp": s.ClickHouse.TCPPort}
	},
}

var flussComponent = &ComponentDesc{
	Name: "fluss", Title: "Fluss",
	Present: func(s *Stack) bool { return s.Fluss != nil },
	Services: []ServiceDesc{{Name: "zookeeper", Step: true}, {Name: "coordinator-server", Step: true},
		{Name: "tablet-server", Step: true}},
	Images: func(l *Lab) []Image {
		return images("zookeeper", "zookeeper:"+l.Stack.Fluss.ZooKeeperVersion, "fluss", l.Stack.Fluss.Image)
	},
}

var flinkComponent = &ComponentDesc{
	Name: "flink", Title: "Flink",
	Present: func(s *Stack) bool { return s.Flink != nil },
	// tiering runs Fluss's tiering job on Flink; job-submitter submits
	// the lab's streaming jobs.
	Services: []ServiceDesc{{Name: "jobmanager", Step: true}, {Name: "taskmanager", Step: true},
		{Name: "sql-gateway", Step: true}, {Name: "tiering"}, {Name: "job-submitter"}},
	Images: func(l *Lab) []Image { return images("flink-base", l.Stack.Flink.Image) },
	Ports: func(s *Stack) map[string]int {
		return map[string]int{"ui": s.Flink.UIPort, "gateway": s.Flink.GatewayPort}
	},
}

var icebergComponent = &ComponentDesc{
	Name: "iceberg", Title: "Iceberg",
	Present: func(s *Stack) bool { return s.Iceberg != nil },
}

var producerComponent = &ComponentDesc{
	Title:    "producer",
	Present:  always,
	Services: []ServiceDesc{{Name: "producer", Step: true, When: producerRuns, Component: "mysql"}},
}

var consoleComponent = &ComponentDesc{
	Name: "console", Title: "query console",
	Present:  func(s *Stack) bool { return s.Console != nil },
	Services: []ServiceDesc{{Name: "console", Step: true}},
	Ports:    func(s *Stack) map[string]int { return map[string]int{"console": s.Console.Port} },
}

var batchLoopComponent = &ComponentDesc{
	Name: "batch_loop", Title: "batch loop",
	Present: func(s *Stack) bool { return s.BatchLoop != nil },
	Services: []ServiceDesc{{Name: "batch-loop", Step: true,
		When: func(l *Lab) bool { return l.Stack.Flink != nil }}},
}
