package schemas

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Defaults for the stack, chosen to fit together (see the stack reference
// in the README). A lab overrides any of them.
const (
	DefaultMySQLVersion      = "8.0.40"
	DefaultKafkaVersion      = "4.1.0"
	DefaultFlinkVersion      = "1.20.1"
	DefaultClickHouseVersion = "25.8"
	DefaultFlussVersion      = "0.9.1-incubating"
	DefaultZooKeeperVersion  = "3.9.2"
	DefaultPaimonVersion     = "1.3.1"
	DefaultIcebergVersion    = "1.10.1"
	DefaultKafkaUIImage      = "ghcr.io/kafbat/kafka-ui:v1.2.0"
)

func componentSchema(attrs ...string) *hcl.BodySchema {
	s := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "enabled"}}}
	for _, a := range attrs {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a})
	}
	return s
}

var (
	stackSchema = func() *hcl.BodySchema {
		s := &hcl.BodySchema{}
		for _, c := range Components {
			s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: c})
		}
		return s
	}()
	mysqlSchema      = componentSchema("version", "image", "database", "port")
	kafkaSchema      = componentSchema("version", "image", "port")
	flinkSchema      = componentSchema("version", "image", "taskmanagers", "slots", "parallelism", "checkpoint_interval", "state_ttl", "ui_port", "gateway_port")
	restartSchema    = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "strategy"}, {Name: "attempts"}, {Name: "delay"}}}
	clickhouseSchema = componentSchema("version", "image", "database", "http_port", "tcp_port")
	flussSchema      = componentSchema("version", "image", "zookeeper_version", "lake", "lake_version", "freshness", "database")
	icebergSchema    = componentSchema("version", "catalog", "database")
	kafkaUISchema    = componentSchema("image", "port")
	consoleSchema    = componentSchema("port")
	batchLoopSchema  = componentSchema("pause")
)

func init() {
	flinkSchema.Blocks = []hcl.BlockHeaderSchema{{Type: "restart"}}
}

func (d *decoder) decodeStack(b *hcl.Block) *Stack {
	st := &Stack{DeclRange: b.DefRange}
	content, diags := b.Body.Content(stackSchema)
	d.diags = append(d.diags, diags...)
	seen := map[string]hcl.Range{}
	for _, cb := range content.Blocks {
		if prev, ok := seen[cb.Type]; ok {
			d.errorf(cb.DefRange, "Duplicate component", "The stack already declares %s at %s.", cb.Type, prev)
			continue
		}
		seen[cb.Type] = cb.DefRange
		d.decodeComponent(st, cb)
	}
	return st
}

// component decodes a component's body and its enabled flag; it returns
// nil when the component is switched off.
func (d *decoder) component(st *Stack, b *hcl.Block, schema *hcl.BodySchema) *hcl.BodyContent {
	content, diags := b.Body.Content(schema)
	d.diags = append(d.diags, diags...)
	if !d.boolean(content.Attributes["enabled"], true) {
		st.Disabled = append(st.Disabled, b.Type)
		return nil
	}
	return content
}

func port(d *decoder, a *hcl.Attribute, def int) int {
	p := d.atLeast(a, 1, def)
	if p > 65535 {
		d.errorf(a.Expr.Range(), "Invalid port", "%s must be a TCP port (1-65535), not %d.", a.Name, p)
		return def
	}
	return p
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (d *decoder) decodeComponent(st *Stack, b *hcl.Block) {
	switch b.Type {
	case "mysql":
		if c := d.component(st, b, mysqlSchema); c != nil {
			at := c.Attributes
			v := orDefault(d.str(at["version"]), DefaultMySQLVersion)
			st.MySQL = &MySQL{
				Version:   v,
				Image:     orDefault(d.str(at["image"]), "mysql:"+v),
				Database:  orDefault(d.identifier(at["database"]), "shop"),
				Port:      port(d, at["port"], 3306),
				DeclRange: b.DefRange,
			}
		}
	case "kafka":
		if c := d.component(st, b, kafkaSchema); c != nil {
			at := c.Attributes
			v := orDefault(d.str(at["version"]), DefaultKafkaVersion)
			st.Kafka = &Kafka{
				Version:   v,
				Image:     orDefault(d.str(at["image"]), "apache/kafka:"+v),
				Port:      port(d, at["port"], 9092),
				DeclRange: b.DefRange,
			}
		}
	case "flink":
		if c := d.component(st, b, flinkSchema); c != nil {
			at := c.Attributes
			v := orDefault(d.str(at["version"]), DefaultFlinkVersion)
			f := &Flink{
				Version:            v,
				Image:              orDefault(d.str(at["image"]), fmt.Sprintf("flink:%s-scala_2.12-java17", v)),
				TaskManagers:       d.atLeast(at["taskmanagers"], 1, 1),
				Slots:              d.atLeast(at["slots"], 1, 4),
				CheckpointInterval: d.duration(at["checkpoint_interval"], "10s"),
				StateTTL:           d.duration(at["state_ttl"], "1h"),
				UIPort:             port(d, at["ui_port"], 8081),
				GatewayPort:        port(d, at["gateway_port"], 8083),
				Restart:            Restart{Strategy: "fixed-delay", Attempts: 10, Delay: "5s"},
				DeclRange:          b.DefRange,
			}
			f.Parallelism = d.atLeast(at["parallelism"], 1, 1)
			if pa := at["parallelism"]; pa != nil && float64(f.Parallelism) > float64(f.TaskManagers)*float64(f.Slots) {
				d.errorf(pa.Expr.Range(), "Parallelism exceeds slots",
					"parallelism %d needs more slots than the %d task manager(s) × %d slot(s) provide.", f.Parallelism, f.TaskManagers, f.Slots)
			}
			for i, rb := range c.Blocks {
				if i > 0 {
					d.errorf(rb.DefRange, "Duplicate restart block", "Flink has one restart strategy, already declared at %s.", c.Blocks[0].DefRange)
					continue
				}
				rc, diags := rb.Body.Content(restartSchema)
				d.diags = append(d.diags, diags...)
				f.Restart.Strategy = d.oneOf(rc.Attributes["strategy"], f.Restart.Strategy, "fixed-delay", "exponential-delay", "none")
				f.Restart.Attempts = d.atLeast(rc.Attributes["attempts"], 0, f.Restart.Attempts)
				f.Restart.Delay = d.duration(rc.Attributes["delay"], f.Restart.Delay)
			}
			st.Flink = f
		}
	case "clickhouse":
		if c := d.component(st, b, clickhouseSchema); c != nil {
			at := c.Attributes
			v := orDefault(d.str(at["version"]), DefaultClickHouseVersion)
			st.ClickHouse = &ClickHouse{
				Version:   v,
				Image:     orDefault(d.str(at["image"]), "clickhouse/clickhouse-server:"+v),
				Database:  orDefault(d.identifier(at["database"]), "analytics"),
				HTTPPort:  port(d, at["http_port"], 8123),
				TCPPort:   port(d, at["tcp_port"], 9000),
				DeclRange: b.DefRange,
			}
		}
	case "fluss":
		if c := d.component(st, b, flussSchema); c != nil {
			at := c.Attributes
			v := orDefault(d.str(at["version"]), DefaultFlussVersion)
			st.Fluss = &Fluss{
				Version:          v,
				Image:            orDefault(d.str(at["image"]), "apache/fluss:"+v),
				ZooKeeperVersion: orDefault(d.str(at["zookeeper_version"]), DefaultZooKeeperVersion),
				Lake:             d.oneOf(at["lake"], "paimon", "paimon"),
				LakeVersion:      orDefault(d.str(at["lake_version"]), DefaultPaimonVersion),
				Freshness:        d.duration(at["freshness"], "30s"),
				Database:         orDefault(d.identifier(at["database"]), "lab"),
				DeclRange:        b.DefRange,
			}
		}
	case "iceberg":
		if c := d.component(st, b, icebergSchema); c != nil {
			at := c.Attributes
			st.Iceberg = &Iceberg{
				Version:   orDefault(d.str(at["version"]), DefaultIcebergVersion),
				Catalog:   d.oneOf(at["catalog"], "hadoop", "hadoop"),
				Database:  orDefault(d.identifier(at["database"]), "lab"),
				DeclRange: b.DefRange,
			}
		}
	case "kafka_ui":
		if c := d.component(st, b, kafkaUISchema); c != nil {
			at := c.Attributes
			st.KafkaUI = &KafkaUI{
				Image:     orDefault(d.str(at["image"]), DefaultKafkaUIImage),
				Port:      port(d, at["port"], 8080),
				DeclRange: b.DefRange,
			}
		}
	case "console":
		if c := d.component(st, b, consoleSchema); c != nil {
			at := c.Attributes
			st.Console = &Console{Port: port(d, at["port"], 8088), DeclRange: b.DefRange}
		}
	default:
		if c := Component(b.Type); c != nil && c.decode != nil {
			if content := d.component(st, b, c.schema); content != nil {
				c.decode(d, st, b, content.Attributes)
			}
		}
	case "batch_loop":
		if c := d.component(st, b, batchLoopSchema); c != nil {
			at := c.Attributes
			st.BatchLoop = &BatchLoop{Pause: d.duration(at["pause"], "5m"), DeclRange: b.DefRange}
		}
	}
}

// identifier decodes a string used as an SQL identifier.
func (d *decoder) identifier(a *hcl.Attribute) string {
	s := d.str(a)
	if s != "" && !namePattern.MatchString(s) {
		d.errorf(a.Expr.Range(), "Invalid name", "%s must be lowercase letters, digits and underscores, starting with a letter; %q is not.", a.Name, s)
		return ""
	}
	return s
}
