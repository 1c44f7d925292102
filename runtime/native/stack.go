package native

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// Fixed ports of the native services that compose keeps on its own
// network; the published ones come from lab.json.
const (
	portKafkaController  = 9093
	portZooKeeper        = 2181
	portFlussCoordinator = 9123
	portFlussTablet      = 9124
	portFlinkRPC         = 6123
	portFlinkBlob        = 6124
	// The link proxy's API (toxiproxy's usual port) and its listeners
	// for the links a latency control names: MySQL → Flink, and Kafka →
	// ClickHouse with the broker listener it forwards to.
	portLinkProxyAPI        = 8474
	portLinkMySQLFlink      = 13306
	portLinkKafkaClickHouse = 19092
	portKafkaClickHouse     = 19093
)

// Plan is a lab's native stack: its services in start order and the
// facts a record states about it.
type Plan struct {
	Layout   Layout
	Ports    Ports
	Face     render.Face
	Services []Service
	// Skipped are the lab's compose services that have no native face,
	// each with why and what to use instead.
	Skipped map[string]string
}

// StandIns lists what stands in for which engine, for the record.
func (p *Plan) StandIns() []string {
	var out []string
	for _, s := range p.Services {
		if s.StandIn != "" {
			out = append(out, s.Name+": "+s.StandIn)
		}
	}
	return out
}

// PortsOf are the native stack's ports for a lab.
func PortsOf(lab *labdir.Lab) Ports {
	p := Ports{KafkaController: portKafkaController, ZooKeeper: portZooKeeper, FlussCoordinator: portFlussCoordinator,
		FlussTablet: portFlussTablet, FlinkRPC: portFlinkRPC, FlinkBlob: portFlinkBlob}
	// The ports the components publish (schemas.ComponentRegistry), 0
	// for those the stack does not run.
	s := lab.Lab.Stack
	p.MySQL = s.Port("mysql", "mysql")
	p.Postgres = s.Port("postgres", "postgres")
	p.Kafka = s.Port("kafka", "kafka")
	p.FlinkREST, p.Gateway = s.Port("flink", "ui"), s.Port("flink", "gateway")
	p.ClickHouseHTTP = s.Port("clickhouse", "http")
	p.Console = s.Port("console", "console")
	if links := lab.Lab.LatencyLinks(); len(links) > 0 {
		p.LinkProxyAPI = portLinkProxyAPI
		if slices.Contains(links, schemas.LinkMySQLFlink) {
			p.LinkMySQLFlink = portLinkMySQLFlink
		}
		if slices.Contains(links, schemas.LinkKafkaClickHouse) {
			p.LinkKafkaClickHouse, p.KafkaClickHouse = portLinkKafkaClickHouse, portKafkaClickHouse
		}
	}
	return p
}

// Labgen is the labgen executable the stack's own services run as, and
// its version: a record names it, since a rebuilt labgen does not change
// a producer already running.
type Labgen struct{ Path, Version string }

// Prepare plans the native stack of a rendered lab: it renders the native
// face into .native/face, resolves what the engines need (Maven jars
// checked against labgen.lock, the chdb virtualenv; downloads the first
// time, with progress) and describes every service. self is the labgen
// executable the producer, the console and the link proxy run as.
func Prepare(ctx context.Context, lab *labdir.Lab, self Labgen, progress func(string)) (*Plan, error) {
	if progress == nil {
		progress = func(string) {}
	}
	lay, err := NewLayout(lab.Dir)
	if err != nil {
		return nil, err
	}
	ports := PortsOf(lab)
	face, files, err := WriteFace(lab)
	if err != nil {
		return nil, err
	}
	p := &Plan{Layout: lay, Ports: ports, Face: face, Skipped: map[string]string{}}
	// The chdb virtualenv (a pip download) is made while Maven fetches
	// the jars: on a fresh machine the two take minutes each.
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		progress(s)
	}
	b := &planner{ctx: ctx, lab: lab, lay: lay, ports: ports, files: files, self: self, progress: say}
	if lab.Lab.Stack.ClickHouse != nil {
		done := make(chan struct{})
		var python string
		var err error
		go func() {
			defer close(done)
			python, err = EnsureChdb(ctx, say)
		}()
		b.chdb = func() (string, error) { <-done; return python, err }
	}
	if err := b.services(p); err != nil {
		return nil, err
	}
	return p, nil
}

// FaceOf is how the native stack's services reach each other: 127.0.0.1
// at the native ports, the lakes in the layout's warehouse. A link a
// latency control slows reaches its upstream through the link proxy:
// Flink's jobs dial the proxy for MySQL.
func FaceOf(lab *labdir.Lab, lay Layout) render.Face {
	ports := PortsOf(lab)
	face := render.NativeFace(lab.Lab, ports.Kafka, ports.FlussCoordinator, lay.Warehouse())
	if ports.LinkMySQLFlink != 0 {
		face.MySQL = net.JoinHostPort("127.0.0.1", strconv.Itoa(ports.LinkMySQLFlink))
	}
	if ports.LinkKafkaClickHouse != 0 {
		face.KafkaClickHouse = net.JoinHostPort("127.0.0.1", strconv.Itoa(ports.LinkKafkaClickHouse))
	}
	return face
}

// WriteFace renders the native face of the lab (its Flink jobs, lake
// tables, MySQL users and ClickHouse schema with the native addresses)
// into .native/face, where the runner reads them while the native stack
// runs.
func WriteFace(lab *labdir.Lab) (render.Face, render.Files, error) {
	lay, err := NewLayout(lab.Dir)
	if err != nil {
		return render.Face{}, nil, err
	}
	face := FaceOf(lab, lay)
	files, err := render.FaceFiles(lab.Lab, face)
	if err != nil {
		return face, nil, err
	}
	faceDir := filepath.Join(lab.Dir, labdir.FaceDir)
	if err := os.RemoveAll(faceDir); err != nil {
		return face, nil, err
	}
	return face, files, render.Write(faceDir, files)
}

// Service finds a planned service.
func (p *Plan) Service(name string) (Service, bool) {
	for _, s := range p.Services {
		if s.Name == name {
			return s, true
		}
	}
	return Service{}, false
}

func (p *Plan) String() string {
	return fmt.Sprintf("native stack of %s: %d services", p.Layout.Lab, len(p.Services))
}
