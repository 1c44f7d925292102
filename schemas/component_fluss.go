package schemas

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Defaults of Fluss, the ZooKeeper it needs and the lake it tiers into.
const (
	DefaultFlussVersion     = "0.9.1-incubating"
	DefaultZooKeeperVersion = "3.9.2"
	DefaultPaimonVersion    = "1.3.1"
)

// ZooKeeperHeapMB is ZooKeeper's heap (zkEnv.sh's ZK_SERVER_HEAP).
const ZooKeeperHeapMB = 64

// Fluss is the streaming storage with tiering into a lake format.
type Fluss struct {
	Version          string    `json:"version"`
	Image            string    `json:"image"`
	ZooKeeperVersion string    `json:"zookeeper_version"`
	Lake             string    `json:"lake"`
	LakeVersion      string    `json:"lake_version"`
	Freshness        string    `json:"freshness"`
	Database         string    `json:"database"`
	DeclRange        hcl.Range `json:"-"`
}

// flussServer is a Fluss server's health: its RPC port accepts a
// connection.
func flussServer(name string) *Health {
	return &Health{Test: test(fmt.Sprintf(`bash -c "exec 3<>/dev/tcp/%s/9123"`, name)), Interval: sec(5), StartPeriod: sec(20), Retries: 24}
}

var flussComponent = &ComponentDesc{
	Name: "fluss", Title: "Fluss",
	Present: func(s *Stack) bool { return s.Fluss != nil },
	Services: []ServiceDesc{
		{Name: "zookeeper", Step: true,
			Memory: fixed(Memory{MB: 192, Why: fmt.Sprintf("ZooKeeper for Fluss, heap %d MB; the health check asks ruok without a JVM", ZooKeeperHeapMB)}),
			// ruok over bash's /dev/tcp: zkServer.sh status would start a JVM.
			Health: &Health{Test: test(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/2181 && printf ruok >&3 && read -r -t 5 reply <&3; [ "$$reply" = imok ]'`),
				Interval: sec(5), StartPeriod: sec(20), Retries: 24},
			Listens: []ContainerPort{{"client", 2181}}},
		{Name: "coordinator-server", Step: true, Needs: needs(healthy("zookeeper")),
			Listens: []ContainerPort{{"fluss", 9123}},
			Memory:  fixed(Memory{MB: 320, Heap: "-Xmx160m -Xms160m", Why: "Fluss coordinator, heap -Xmx160m -Xms160m"}),
			Health:  flussServer("coordinator-server")},
		{Name: "tablet-server", Step: true, Needs: needs(healthy("coordinator-server")),
			Listens: []ContainerPort{{"fluss", 9123}},
			Memory:  fixed(Memory{MB: 448, Heap: "-Xmx192m -Xms192m", Why: "Fluss tablet server, heap -Xmx192m -Xms192m; RocksDB and Arrow buffers off the heap"}),
			Health:  flussServer("tablet-server")},
	},
	Images: func(l *Lab) []Image {
		return images("zookeeper", "zookeeper:"+l.Stack.Fluss.ZooKeeperVersion, "fluss", l.Stack.Fluss.Image)
	},
	schema: componentSchema("version", "image", "zookeeper_version", "lake", "lake_version", "freshness", "database"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		v := orDefault(d.version(at["version"]), DefaultFlussVersion)
		st.Fluss = &Fluss{
			Version:          v,
			Image:            orDefault(d.image(at["image"]), "apache/fluss:"+v),
			ZooKeeperVersion: orDefault(d.version(at["zookeeper_version"]), DefaultZooKeeperVersion),
			Lake:             d.oneOf(at["lake"], "paimon", "paimon"),
			LakeVersion:      orDefault(d.version(at["lake_version"]), DefaultPaimonVersion),
			Freshness:        d.duration(at["freshness"], "30s"),
			Database:         orDefault(d.identifier(at["database"]), "lab"),
			DeclRange:        b.DefRange,
		}
	},
}
