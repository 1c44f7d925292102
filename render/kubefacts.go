package render

import "github.com/labgen/labgen/schemas"

// What the Kubernetes face (render/kube) reads of the compose render's
// own sizing, so that both faces size the stack from one place.

// TaskSlots is each TaskManager's numberOfTaskSlots.
func TaskSlots(l *schemas.Lab) int { return taskSlots(l) }

// FlinkProcessMB is the process size of the JobManager and of each
// TaskManager in MiB; their containers get FlinkSlackMB more.
func FlinkProcessMB(l *schemas.Lab) (jm, tm int) { return flinkMemory(l) }

// FlinkSlackMB is what a Flink container's limit adds to the process size.
const FlinkSlackMB = flinkSlackMB

// KafkaTopic is a topic of the lab and its partition count.
type KafkaTopic struct {
	Name       string
	Partitions int
}

// KafkaTopics lists the lab's topics in table order.
func KafkaTopics(l *schemas.Lab) []KafkaTopic {
	var out []KafkaTopic
	for _, t := range l.Tables {
		if k := t.Store(schemas.StoreKafka); k != nil {
			out = append(out, KafkaTopic{Name: k.Name, Partitions: max(1, k.Partitions)})
		}
	}
	return out
}

// TieringJar is the path of the Fluss tiering job's jar in the lab's
// Flink image ("" when the stack has no Fluss).
func TieringJar(l *schemas.Lab) (string, error) {
	jars, err := connectorJars(l)
	if err != nil {
		return "", err
	}
	if j, ok := tieringJar(jars); ok {
		return "/opt/flink/" + j.Path(), nil
	}
	return "", nil
}

// Heaps of the JVMs the Kubernetes face starts itself (Strimzi and the
// Flink operator size their own from the memory they are given).
const (
	KafkaHeap   = kafkaHeap
	CoordHeap   = coordHeap
	TabletHeap  = tabletHeap
	GatewayHeap = gatewayHeap
	ZKHeapMB    = zkHeapMB
)
