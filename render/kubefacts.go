package render

import "github.com/labgen/labgen/schemas"

// What the Kubernetes face (render/kube) reads of the compose render's
// own sizing, so that both faces size the stack from one place.

// TaskSlots is each TaskManager's numberOfTaskSlots.
func TaskSlots(l *schemas.Lab) int { return l.TaskSlots() }

// FlinkProcessMB is the process size of the JobManager and of each
// TaskManager in MiB.
func FlinkProcessMB(l *schemas.Lab) (jm, tm int) { return l.Stack.FlinkMemory() }

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

// KafkaHeap is the broker's heap flags, as the registry sizes it for
// compose (Strimzi sizes nothing else of ours).
func KafkaHeap(l *schemas.Lab) string { return schemas.Service("kafka").Memory(l).Heap }
