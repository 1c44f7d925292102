package native

import "testing"

// TestJarVersion finds the main artifact's jar, not a sibling whose name
// starts the same (flink-runtime-web, zookeeper-jute).
func TestJarVersion(t *testing.T) {
	cp := []string{"/m2/org/apache/flink/flink-runtime-web-1.20.1.jar", "/m2/x/zookeeper-jute-3.9.2.jar",
		"/m2/org/apache/flink/flink-runtime-1.20.1.jar", "/m2/x/zookeeper-3.9.2.jar"}
	for artifact, want := range map[string]string{"flink-runtime": "flink-runtime 1.20.1", "zookeeper": "zookeeper 3.9.2", "kafka_2.13": ""} {
		if got := jarVersion(cp, artifact); got != want {
			t.Errorf("jarVersion(%s) = %q, want %q", artifact, got, want)
		}
	}
}
