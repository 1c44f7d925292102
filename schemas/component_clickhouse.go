package schemas

import "github.com/hashicorp/hcl/v2"

// DefaultClickHouseVersion is the clickhouse-server image's tag.
const DefaultClickHouseVersion = "25.8"

// ClickHouse is the serving store.
type ClickHouse struct {
	Version   string    `json:"version"`
	Image     string    `json:"image"`
	Database  string    `json:"database"`
	HTTPPort  int       `json:"http_port"`
	TCPPort   int       `json:"tcp_port"`
	DeclRange hcl.Range `json:"-"`
}

var clickhouseComponent = &ComponentDesc{
	Name: "clickhouse", Title: "ClickHouse",
	Present: func(s *Stack) bool { return s.ClickHouse != nil },
	Services: []ServiceDesc{
		{Name: "clickhouse", Step: true,
			Memory: fixed(Memory{MB: 512, Why: "clickhouse-server keeps itself to 90% of its container's limit; the lab's tables are small"}),
			// /ping with whichever HTTP client the image has, else a
			// native query.
			Health: &Health{Test: test(wgetGet(8123, "/ping") + " || " + curlGet(8123, "/ping") + ` || clickhouse-client --query "SELECT 1" >/dev/null`),
				Interval: sec(5), StartPeriod: sec(20), Retries: 24, HTTP: "/ping"},
			Listens: []ContainerPort{{"http", 8123}, {"native", 9000}}},
		// The schema's Kafka engine tables need the topics.
		{Name: "clickhouse-init", Needs: needs(healthy("clickhouse"), completed("kafka-init")),
			Memory: fixed(Memory{MB: 128, Why: "clickhouse-client applying the schema"})},
	},
	Images: func(l *Lab) []Image { return images("clickhouse", l.Stack.ClickHouse.Image) },
	Ports: func(s *Stack) map[string]int {
		return map[string]int{"http": s.ClickHouse.HTTPPort, "tcp": s.ClickHouse.TCPPort}
	},
	schema: componentSchema("version", "image", "database", "http_port", "tcp_port"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		v := orDefault(d.version(at["version"]), DefaultClickHouseVersion)
		st.ClickHouse = &ClickHouse{
			Version:   v,
			Image:     orDefault(d.image(at["image"]), "clickhouse/clickhouse-server:"+v),
			Database:  orDefault(d.identifier(at["database"]), "analytics"),
			HTTPPort:  port(d, at["http_port"], 8123),
			TCPPort:   port(d, at["tcp_port"], 9000),
			DeclRange: b.DefRange,
		}
	},
}
