package schemas

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Defaults of the Kafka broker and its UI.
const (
	DefaultKafkaVersion = "4.1.0"
	DefaultKafkaUIImage = "ghcr.io/kafbat/kafka-ui:v1.2.0"
)

// KafkaInternal is Kafka's listener on the compose network, which the
// other containers use.
const KafkaInternal = "kafka:19092"

// KafkaProbeHeap is the heap of a Kafka tool started inside the broker's
// container (its health check, ./stream-lab smoke's kafka-get-offsets.sh),
// which would otherwise take the broker's own KAFKA_HEAP_OPTS (-Xms160m
// included). An admin client listing a topic's end offsets (Kafka 4.1.0)
// peaks at 67 MiB of anonymous memory with it, 97 MiB with -Xmx64m.
const KafkaProbeHeap = "-Xmx24m"

// Kafka is a single KRaft node.
type Kafka struct {
	Version   string    `json:"version"`
	Image     string    `json:"image"`
	Port      int       `json:"port"`
	DeclRange hcl.Range `json:"-"`
}

// KafkaUI is a web UI for the Kafka topics.
type KafkaUI struct {
	Image     string    `json:"image"`
	Port      int       `json:"port"`
	DeclRange hcl.Range `json:"-"`
}

var kafkaComponent = &ComponentDesc{
	Name: "kafka", Title: "Kafka",
	Present: func(s *Stack) bool { return s.Kafka != nil },
	Services: []ServiceDesc{
		{Name: "kafka", Step: true,
			Memory: fixed(Memory{MB: 416, Heap: "-Xmx160m -Xms160m",
				Why: "one KRaft broker, heap -Xmx160m -Xms160m; the health check's JVM (" + KafkaProbeHeap + ") runs inside it every 30 s, as ./stream-lab smoke's topic counts do"}),
			// The probe is a JVM of its own, inside the broker's memory
			// limit: a small heap, and at most one every 30 s.
			Health: &Health{Test: test("KAFKA_HEAP_OPTS='" + KafkaProbeHeap + "' /opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server " + KafkaInternal + " >/dev/null 2>&1"),
				Interval: sec(30), StartPeriod: sec(20), Retries: 10}},
		{Name: "kafka-init", Needs: needs(healthy("kafka")),
			Memory: fixed(Memory{MB: 128, Heap: "-Xmx48m", Why: "kafka-topics.sh, heap -Xmx48m"})},
	},
	Images: func(l *Lab) []Image { return images("kafka", l.Stack.Kafka.Image) },
	Ports:  func(s *Stack) map[string]int { return map[string]int{"kafka": s.Kafka.Port} },
	schema: componentSchema("version", "image", "port"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		v := orDefault(d.version(at["version"]), DefaultKafkaVersion)
		st.Kafka = &Kafka{
			Version:   v,
			Image:     orDefault(d.image(at["image"]), "apache/kafka:"+v),
			Port:      port(d, at["port"], 9092),
			DeclRange: b.DefRange,
		}
	},
}

var kafkaUIHeap = jvmFlags(128, 128, 48)

var kafkaUIComponent = &ComponentDesc{
	Name: "kafka_ui", Title: "Kafka UI",
	// Kafka UI shows Kafka: without it, it does not run.
	Present: func(s *Stack) bool { return s.KafkaUI != nil && s.Kafka != nil },
	Services: []ServiceDesc{{Name: "kafka-ui", Step: true, Needs: needs(healthy("kafka")),
		Listens: []ContainerPort{{"http", 8080}},
		// The image runs java $JAVA_OPTS -jar: 128 + 128 + 48 MiB capped,
		// 64 for the rest of the JVM (threads, Netty's direct buffers), 16
		// of margin.
		Memory: fixed(Memory{MB: 384, Heap: kafkaUIHeap, Why: "Kafka UI (Spring Boot), JVM " + kafkaUIHeap}),
		Health: httpHealth(wgetGet, 8080, "/actuator/health", Health{Interval: sec(10), StartPeriod: sec(30), Retries: 18})}},
	Images: func(l *Lab) []Image { return images("kafka-ui", l.Stack.KafkaUI.Image) },
	Ports:  func(s *Stack) map[string]int { return map[string]int{"ui": s.KafkaUI.Port} },
	schema: componentSchema("image", "port"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		st.KafkaUI = &KafkaUI{
			Image:     orDefault(d.image(at["image"]), DefaultKafkaUIImage),
			Port:      port(d, at["port"], 8080),
			DeclRange: b.DefRange,
		}
	},
}

// KafkaClusterID is the lab's fixed KRaft cluster ID, the same on every
// face: 16 bytes derived from the lab's name, base64url without padding,
// as Kafka writes them. Like Kafka's own Uuid.randomUuid, it never begins
// with "-", which kafka-storage format --cluster-id would read as an
// option (one lab name in 64 hits it): such a digest is hashed again.
func (l *Lab) KafkaClusterID() string {
	seed := "labgen kafka cluster " + l.Name
	for i := 0; ; i++ {
		in := seed
		if i > 0 {
			in = fmt.Sprintf("%s #%d", seed, i)
		}
		sum := sha256.Sum256([]byte(in))
		if id := base64.RawURLEncoding.EncodeToString(sum[:16]); !strings.HasPrefix(id, "-") {
			return id
		}
	}
}
