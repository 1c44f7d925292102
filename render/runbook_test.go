package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// The runbook speaks of the lab it is for: a stack without Kafka UI reads
// its topics with Kafka's own tools (or the run's record), the producer's
// memory note names the lab's own follow-ups, and a captured number in a
// key reads as the number a run writes.
func TestRunbookFromTheLab(t *testing.T) {
	for _, c := range []struct {
		lab       string
		has, hasn []string
	}{
		{"sensors", []string{
			"The stack has no Kafka UI: `labgen run` records every message of the topic `site-heat` whose key is `{\"site\":\"<site from step before>\"}`",
			"   ./stream-lab compose exec -T -e KAFKA_HEAP_OPTS=" + schemas.KafkaProbeHeap + " kafka /opt/kafka/bin/kafka-console-consumer.sh --bootstrap-server kafka:19092 --topic site-heat --from-beginning --timeout-ms 10000 --property print.key=true | grep -F -- '{\"site\":\"<site from step before>\"}'\n",
			"; the kafka steps' commands below run in the broker's container, which has no native form",
			"| producer | 64 MB | labgen produce (Go); pending receipt follow-ups take bytes each |",
		}, []string{"In Kafka UI", "Kafka UI has no native form", "pending payments"}},
		{"orders_pg", []string{
			"whose key is `{\"order_id\":<order_id from step pick>}`",
			"| grep -F -- '{\"order_id\":<order_id from step pick>}'\n",
		}, []string{"In Kafka UI", `"<order_id from step pick>"`}},
		{"orders", []string{
			"In Kafka UI, open the topic `dwd-order-wide` and show every message whose key is `{\"order_id\":<order_id from step pick>}`.",
			"In Kafka UI, open the topic `dwd-order-wide` and note each partition's offsets.",
			"| producer | 64 MB | labgen produce (Go); pending payment follow-ups take bytes each |",
		}, []string{"kafka-console-consumer", "the kafka steps' commands below"}},
	} {
		lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", c.lab), schemas.Options{})
		if diags.HasErrors() {
			t.Fatalf("%s: %s", c.lab, diags.Error())
		}
		rb := string(runbook(lab, ""))
		for _, s := range c.has {
			if !strings.Contains(rb, s) {
				t.Errorf("%s: the runbook lacks %q", c.lab, s)
			}
		}
		for _, s := range c.hasn {
			if strings.Contains(rb, s) {
				t.Errorf("%s: the runbook has %q", c.lab, s)
			}
		}
	}
}

// Without Kafka UI, each form of a kafka step has its command: offsets,
// a tail (with the step's timeout) and a key quoted for the shell.
func TestKafkaStepWithoutUI(t *testing.T) {
	l := &schemas.Lab{Stack: &schemas.Stack{Kafka: &schemas.Kafka{Port: 9092}}}
	e := &schemas.Experiment{Name: "e"}
	for _, c := range []struct {
		step *schemas.KafkaStep
		want string
	}{
		{&schemas.KafkaStep{Topic: "t", Offsets: true}, "kafka /opt/kafka/bin/kafka-get-offsets.sh --bootstrap-server kafka:19092 --topic t\n"},
		{&schemas.KafkaStep{Topic: "t", Tail: 5, Timeout: "30s"}, "--topic t --from-beginning --timeout-ms 30000 --property print.key=true | tail -n 5\n"},
		{&schemas.KafkaStep{Topic: "t", Key: &schemas.Expr{Text: "it's"}, Timeout: "10s"}, "--timeout-ms 10000 --property print.key=true | grep -F -- 'it'\\''s'\n"},
	} {
		var b strings.Builder
		stepBody(&b, l, e, &schemas.Step{Name: "s", Kind: schemas.StepKafka, Kafka: c.step})
		if got := b.String(); !strings.Contains(got, c.want) || strings.Contains(got, "In Kafka UI") {
			t.Errorf("kafka step %+v:\n%s\nwant it to contain %q", c.step, got, c.want)
		}
	}
}
