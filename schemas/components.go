package schemas

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// ComponentDesc is one component of the stack, described once: its
// stack block, the compose services it runs (in the order every listing
// uses, each with its memory budget and health check), the images it
// pulls and the host ports it publishes. schemas (Has, Services, which
// component a service needs), render (the order of compose's services,
// their mem_limit, health checks and depends_on, the lock's and lab.json's
// images, Kubernetes' container ports) and the runtime (the record's
// images, endpoints, the native stack's ports, probes and order) read it
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
	// schema is its stack block's body (componentSchema adds enabled);
	// decode reads the block's content into the Stack. nil for what is no
	// block of its own.
	schema *hcl.BodySchema
	decode func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent)
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
	// Memory is its memory limit in the compose stack and why it is that
	// size.
	Memory func(*Lab) Memory
	// Health is its compose health check; nil for one-shot services,
	// which exit instead.
	Health *Health
	// Submits tells that it submits the lab's Flink jobs when it starts:
	// labgen run starts it only after the engines have checked them.
	Submits bool
	// Needs are the services it waits for, among them some the lab may
	// not run (Lab.ServiceNeeds keeps those it runs); "taskmanager" stands for
	// every TaskManager. compose's depends_on and the native stack's
	// order are drawn from them.
	Needs func(*Lab) []Need
	// Listens are the container ports other services reach it at, which
	// Kubernetes declares (compose's network needs no declaration); set
	// for the services Kubernetes runs as workloads of their own.
	Listens []ContainerPort
}

// Need is a service another one waits for before it starts.
type Need struct {
	Service string
	// Completed: it must have run once and exited 0 (a one-shot);
	// otherwise it must be healthy.
	Completed bool
	// Optional: the service starts once this one has ended, whatever its
	// exit status (compose's required: false).
	Optional bool
}

// ContainerPort is a named port a service listens on in its container.
type ContainerPort struct {
	Name string
	Port int
}

func healthy(service string) Need   { return Need{Service: service} }
func completed(service string) Need { return Need{Service: service, Completed: true} }

// needs are needs that do not depend on the lab.
func needs(all ...Need) func(*Lab) []Need { return func(*Lab) []Need { return all } }

// ServiceNeeds are what a service of the lab's stack waits for: its
// description's needs on services the lab runs (a lab without Kafka has
// no kafka-init to wait for).
func (l *Lab) ServiceNeeds(service string) []Need {
	d := Service(service)
	if d == nil || d.Needs == nil {
		return nil
	}
	var out []Need
	for _, n := range d.Needs(l) {
		if runs(l, n.Service) {
			out = append(out, n)
		}
	}
	return out
}

// runs tells whether the lab's stack runs a service of the registry:
// its component is in the stack and its When, if any, holds.
func runs(l *Lab, service string) bool {
	for _, c := range ComponentRegistry {
		for _, s := range c.Services {
			if s.Name == service {
				return c.Present(l.Stack) && (s.When == nil || s.When(l))
			}
		}
	}
	return false
}

// Memory is a service's memory limit (compose mem_limit) in MiB. Every
// JVM gets an explicit heap, and each limit covers the heap plus the
// JVM's own memory (metaspace, code cache, threads, direct buffers) and
// what runs beside it in the container (health checks, the entrypoint's
// shell). The seed lab's default stack sums to at most 7 GiB, 4.5 GiB
// without the lakes (render's TestMemoryBudget).
type Memory struct {
	MB int
	// Heap is the JVM's memory flags, for a JVM labgen sizes through its
	// environment ("" otherwise): its heap, and for the JVMs that load
	// many classes (Flink's clients, Kafka UI) caps on metaspace and code
	// cache too, which the limit then holds (jvmFlags).
	Heap string
	// Why says what the limit covers, for the runbook.
	Why string
}

// jvmFlags are the memory flags of a JVM whose limit must hold every
// capped area: heap, metaspace (class metadata and compressed class
// space: MaxMetaspaceSize covers both) and code cache. The limit adds the
// JVM's uncapped native memory (symbols, the CDS archive, the JIT's
// arenas, thread stacks: 60 to 80 MiB for Flink's SQL client) and what
// runs beside it.
func jvmFlags(heapMB, metaspaceMB, codeCacheMB int) string {
	return fmt.Sprintf("-Xmx%dm -XX:MaxMetaspaceSize=%dm -XX:ReservedCodeCacheSize=%dm", heapMB, metaspaceMB, codeCacheMB)
}

// fixed is a memory budget that does not depend on the lab.
func fixed(m Memory) func(*Lab) Memory { return func(*Lab) Memory { return m } }

// Health is a service's health check: compose runs Test in the container
// (CMD-SHELL; the container's own variables written $$NAME so that
// compose leaves them alone) every Interval, and gives up after Retries
// failures once StartPeriod has passed.
type Health struct {
	Test        func(*Lab) string
	Interval    time.Duration
	StartPeriod time.Duration
	Retries     uint64
	// HTTP, when the check is a GET of a path on the service's own HTTP
	// port, is that path; the native stack's probe asks the same one.
	HTTP string
}

func test(cmd string) func(*Lab) string { return func(*Lab) string { return cmd } }

// The health checks that GET a path on the container's own port, with
// the HTTP client its image has: the path is named once, for compose's
// test and the native stack's probe.
func wgetGet(port int, path string) string {
	return fmt.Sprintf("wget -q -O /dev/null http://127.0.0.1:%d%s", port, path)
}

func curlGet(port int, path string) string {
	return fmt.Sprintf("curl -fsS -o /dev/null http://127.0.0.1:%d%s", port, path)
}

// httpHealth checks with get(port, path) and has the native probe ask
// the same path.
func httpHealth(get func(int, string) string, port int, path string, h Health) *Health {
	h.Test, h.HTTP = test(get(port, path)), path
	return &h
}

// Service is the description of a compose service, or nil. A numbered
// TaskManager (taskmanager-2, …) is described by taskmanager.
func Service(name string) *ServiceDesc {
	for _, c := range ComponentRegistry {
		for i := range c.Services {
			if c.Services[i].Name == name {
				return &c.Services[i]
			}
		}
	}
	if base, n, ok := cutLastDash(name); ok && base == "taskmanager" && n > 1 {
		return Service(base)
	}
	return nil
}

func cutLastDash(s string) (string, int, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '-' {
			n, err := strconv.Atoi(s[i+1:])
			return s[:i], n, err == nil
		}
	}
	return "", 0, false
}

// HealthPath is the HTTP path a service's health check asks ("" when its
// check is no plain GET).
func HealthPath(service string) string {
	if s := Service(service); s != nil && s.Health != nil {
		return s.Health.HTTP
	}
	return ""
}

// Image is an image the stack pulls, or builds on.
type Image struct {
	// Role says what it is for: a service's name, or flink-base,
	// labgen-build, labgen-runtime for the bases of the built images.
	Role string `json:"role"`
	Ref  string `json:"ref"`
}

// ComponentRegistry lists every component in the order of the stack's
// services; each is described in its own file (component_*.go).
var ComponentRegistry = []*ComponentDesc{
	mysqlComponent, postgresComponent, kafkaComponent, kafkaUIComponent, clickhouseComponent, flussComponent,
	flinkComponent, icebergComponent, paimonComponent, producerComponent, consoleComponent, batchLoopComponent,
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

// Submitters are the compose services that submit the lab's Flink jobs
// when they start.
func Submitters() []string {
	var out []string
	for _, c := range ComponentRegistry {
		for _, s := range c.Services {
			if s.Submits {
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

// sec is a number of seconds, for the health checks' intervals.
func sec(n int) time.Duration { return time.Duration(n) * time.Second }
