package native

import (
	"context"
	"fmt"
	"strconv"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// face is what stands on the native stack for one compose service of the
// registry (schemas.ComponentRegistry). Exactly one field is set: the
// native services that run it, the native part that does its work, or
// why it does not run natively and what to use instead. Prepare walks the
// registry and asks faces, so a new compose service without a native face
// fails TestEveryServiceHasANativeFace instead of being left out.
//
// What a native service waits for comes from the registry's needs
// (nativeNeeds); foldedInto, beside doneBy, names the native service
// that does a one-shot's work.
type face struct {
	add        func(b *planner) ([]Service, error)
	doneBy     string
	foldedInto string
	skip       func(b *planner) string
}

var faces = map[string]face{
	"mysql":    {add: (*planner).mariadb},
	"postgres": {add: (*planner).postgres},
	"kafka": {add: func(b *planner) ([]Service, error) {
		return b.jvm(func(lay Layout, cp *Classpaths, p Ports) Service { return KafkaService(lay, cp, p, b.lab.Lab) })
	}},
	"kafka-init": {doneBy: "kafka: its Ready step creates the lab's topics", foldedInto: "kafka"},
	"kafka-ui": {skip: func(b *planner) string {
		return "Kafka UI runs only as a container; read a key's messages with a kafka step or `labgen run`, or point any Kafka client at 127.0.0.1:" + strconv.Itoa(b.ports.Kafka)
	}},
	"clickhouse":         {add: (*planner).clickhouse},
	"clickhouse-init":    {doneBy: "clickhouse: chdb applies sql/clickhouse/schema.sql when it starts", foldedInto: "clickhouse"},
	"zookeeper":          {add: func(b *planner) ([]Service, error) { return b.jvm(ZooKeeperService) }},
	"coordinator-server": {add: (*planner).flussCoordinator},
	"tablet-server":      {add: (*planner).flussTablet},
	"jobmanager":         {add: (*planner).jobmanager},
	"taskmanager":        {add: (*planner).taskmanagers},
	"sql-gateway": {add: func(b *planner) ([]Service, error) {
		config, err := b.flinkConfig()
		if err != nil {
			return nil, err
		}
		return []Service{SQLGatewayService(b.lay, b.cp, b.ports, config)}, nil
	}},
	"tiering":       {doneBy: "labgen up and run: they submit Fluss's tiering job to the JobManager (EnsureTiering)"},
	"job-submitter": {doneBy: "labgen up and run: they submit the lab's streaming jobs through the SQL gateway"},
	"producer":      {add: (*planner).producer},
	"console":       {add: (*planner).console},
	"batch-loop": {skip: func(b *planner) string {
		return "the background batch loop is a compose service; `labgen batch " + b.lab.Dir + "` runs the bounded jobs on demand"
	}},
}

// planner is what the faces share while Prepare plans a stack: the lab,
// where its state lives, and what is resolved once for several services
// (the Maven classpaths, the Flink configuration).
type planner struct {
	ctx      context.Context
	lab      *labdir.Lab
	lay      Layout
	ports    Ports
	files    render.Files
	self     Labgen
	progress func(string)

	// chdb waits for the chdb virtualenv Prepare started making.
	chdb   func() (string, error)
	cp     *Classpaths
	config render.Settings
}

// jvm plans a service of the JVM engines, resolving their jars the first
// time.
func (b *planner) jvm(service func(Layout, *Classpaths, Ports) Service) ([]Service, error) {
	if err := b.classpaths(); err != nil {
		return nil, err
	}
	return []Service{service(b.lay, b.cp, b.ports)}, nil
}

func (b *planner) classpaths() error {
	if b.cp != nil {
		return nil
	}
	cp, err := Resolve(b.ctx, b.lab, b.progress)
	b.cp = cp
	return err
}

// flinkConfig is the lab's Flink configuration with the native stack's
// addresses and directories.
func (b *planner) flinkConfig() (render.Settings, error) {
	if b.config != nil {
		return b.config, nil
	}
	if err := b.classpaths(); err != nil {
		return nil, err
	}
	b.config = FlinkConfig(b.lab.Lab, b.lay, b.ports)
	return b.config, nil
}

func (b *planner) mariadb() ([]Service, error) {
	svc, err := mariadbService(b.lay, b.ports.MySQL, b.files["sql/mysql/schema.sql"], b.files["sql/mysql/users.sql"], b.lab.Env)
	return []Service{svc}, err
}

func (b *planner) postgres() ([]Service, error) {
	svc, err := postgresService(b.lay, b.ports.Postgres, b.lab.Lab.Stack.Postgres.Database, b.files["sql/postgres/schema.sql"], b.files["sql/postgres/users.sql"], b.lab.Env)
	return []Service{svc}, err
}

func (b *planner) clickhouse() ([]Service, error) {
	python, err := b.chdb()
	if err != nil {
		return nil, err
	}
	env := b.lab.Env
	svc := ClickHouseService(b.lay, python, b.ports.ClickHouseHTTP, b.files["sql/clickhouse/schema.sql"], ClickHouseUsers{
		Admin: env["CLICKHOUSE_USER"], AdminPassword: env["CLICKHOUSE_PASSWORD"],
		Reader: env[labdir.ClickHouseReaderUser], ReaderPassword: env[labdir.ClickHouseReaderPassword],
	})
	return []Service{svc}, nil
}

// flussCoordinator and flussTablet are the Fluss servers, configured from
// the lab's settings.
func (b *planner) flussCoordinator() ([]Service, error) {
	return b.jvm(func(lay Layout, cp *Classpaths, p Ports) Service {
		return FlussCoordinatorService(lay, cp, p, b.lab.Lab)
	})
}

func (b *planner) flussTablet() ([]Service, error) {
	return b.jvm(func(lay Layout, cp *Classpaths, p Ports) Service { return FlussTabletService(lay, cp, p, b.lab.Lab) })
}

func (b *planner) jobmanager() ([]Service, error) {
	config, err := b.flinkConfig()
	if err != nil {
		return nil, err
	}
	jm, err := JobManagerService(b.ctx, b.lay, b.cp, b.ports, config)
	return []Service{jm}, err
}

// taskmanagers are as many TaskManagers as the lab's flink block asks
// for, named as compose names them, so that "stop taskmanager" means the
// same one.
func (b *planner) taskmanagers() ([]Service, error) {
	config, err := b.flinkConfig()
	if err != nil {
		return nil, err
	}
	var out []Service
	for i := 1; i <= max(b.lab.Lab.Stack.Flink.TaskManagers, 1); i++ {
		tm, err := TaskManagerService(b.ctx, b.lay, b.cp, b.ports, config, render.TaskManagerName(i))
		if err != nil {
			return nil, err
		}
		out = append(out, tm)
	}
	return out, nil
}

// producer writes the lab's source database.
func (b *planner) producer() ([]Service, error) {
	return []Service{{
		Name:    "producer",
		Argv:    []string{b.self.Path, "produce", b.lab.Dir},
		Version: b.self.version(),
		Reads:   producerReads(b.lab.Lab),
		Health:  Probe{Func: func(context.Context) error { return nil }},
		Memory:  "≈30m",
	}}, nil
}

// console reads the source databases and ClickHouse the stack runs.
func (b *planner) console() ([]Service, error) {
	addr := "127.0.0.1:" + strconv.Itoa(b.ports.Console)
	return []Service{{
		Name:    "console",
		Argv:    []string{b.self.Path, "console", b.lab.Dir, "--listen", addr},
		Version: b.self.version(),
		Reads:   consoleReads(b.lab.Lab),
		Health:  httpProbe("console", "http://"+addr, 0),
		Memory:  "≈30m",
	}}, nil
}

// services plans the native services of the lab's compose services, in
// the registry's order.
func (b *planner) services(p *Plan) error {
	l := b.lab.Lab
	needs := nativeNeeds(l)
	for _, sd := range composeServices(l) {
		f, ok := faces[sd.Name]
		switch {
		case !ok:
			return fmt.Errorf("native: compose service %s has no native face", sd.Name)
		case f.add != nil:
			svcs, err := f.add(b)
			if err != nil {
				return err
			}
			for i := range svcs {
				svcs[i].Needs = needs[sd.Name]
			}
			p.Services = append(p.Services, svcs...)
		case f.skip != nil:
			p.Skipped[sd.Name] = f.skip(b)
		}
	}
	if b.ports.LinkProxyAPI != 0 {
		p.Services = append(p.Services, b.linkProxy())
	}
	return nil
}

// linkProxy routes the links the lab's latency controls slow through
// toxiproxy, in labgen's own process: not a compose service of the lab
// but the native stack's instrument, so it has no face in the registry.
// With no control on it passes every byte at once.
func (b *planner) linkProxy() Service {
	api := "127.0.0.1:" + strconv.Itoa(b.ports.LinkProxyAPI)
	argv := []string{b.self.Path, "linkproxy", "--api", api}
	for _, name := range b.lab.Lab.LatencyLinks() {
		switch name {
		case schemas.LinkMySQLFlink:
			argv = append(argv, "--link", fmt.Sprintf("%s=127.0.0.1:%d>127.0.0.1:%d", name, b.ports.LinkMySQLFlink, b.ports.MySQL))
		case schemas.LinkKafkaClickHouse:
			argv = append(argv, "--link", fmt.Sprintf("%s=127.0.0.1:%d>127.0.0.1:%d", name, b.ports.LinkKafkaClickHouse, b.ports.KafkaClickHouse))
		}
	}
	return Service{
		Name:    LinkProxyService,
		Argv:    argv,
		Health:  Probe{HTTP: "http://" + api + "/version"},
		Memory:  "≈20m",
		Version: b.self.version(),
	}
}

// version is the Version of a service labgen itself runs.
func (l Labgen) version() string {
	if l.Version == "" {
		return ""
	}
	return LabgenVersionPrefix + l.Version
}

// LabgenVersionPrefix begins the Version of a service labgen itself runs
// ("labgen v0.9.0").
const LabgenVersionPrefix = "labgen "

// LinkProxyService is the native service that holds the slowed links.
const LinkProxyService = "linkproxy"

// composeServices are the registry's services the lab's stack runs, in
// the registry's order.
func composeServices(l *schemas.Lab) []schemas.ServiceDesc {
	var out []schemas.ServiceDesc
	for _, c := range schemas.ComponentRegistry {
		if !c.Present(l.Stack) {
			continue
		}
		for _, sd := range c.Services {
			if sd.When == nil || sd.When(l) {
				out = append(out, sd)
			}
		}
	}
	return out
}

// nativeNeeds are, by compose service, the native services each native
// service waits for to be healthy: its needs in the registry
// (schemas.ServiceDesc.Needs), where a one-shot folded into a native
// service stands for that service, which in turn inherits the one-shot's
// own needs (clickhouse applies the schema that compose's clickhouse-init
// applies once kafka-init has created the topics, so it needs kafka).
// What has no native service of its own (tiering, job-submitter, kafka-ui,
// batch-loop) drops out; "taskmanager" is every TaskManager.
func nativeNeeds(l *schemas.Lab) map[string][]string {
	// native is the native service that stands for a compose service.
	native := func(name string) string {
		f := faces[name]
		if f.add != nil {
			return name
		}
		return f.foldedInto
	}
	sds := composeServices(l)
	out := map[string][]string{}
	for _, sd := range sds {
		if faces[sd.Name].add == nil {
			continue
		}
		all := l.ServiceNeeds(sd.Name)
		for _, one := range sds {
			if faces[one.Name].foldedInto == sd.Name {
				all = append(all, l.ServiceNeeds(one.Name)...)
			}
		}
		want := map[string]bool{}
		for _, n := range all {
			if s := native(n.Service); s != "" && s != sd.Name {
				want[s] = true
			}
		}
		// In the order the services start.
		for _, s := range sds {
			switch {
			case !want[s.Name]:
			case s.Name == "taskmanager":
				out[sd.Name] = append(out[sd.Name], render.TaskManagerNames(l)...)
			default:
				out[sd.Name] = append(out[sd.Name], s.Name)
			}
		}
	}
	return out
}
