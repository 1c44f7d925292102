package render

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// The runbook tells the reader what to do for every step kind of
// schemas.StepKinds: a new kind needs its prose in stepBody (and a step
// here).
func TestRunbookCoversStepKinds(t *testing.T) {
	q := schemas.Expr{Text: "SELECT 1"}
	steps := map[string]*schemas.Step{
		schemas.StepQuery:   {Query: &schemas.QueryStep{Engine: schemas.EngineMySQL, SQL: q}},
		schemas.StepKafka:   {Kafka: &schemas.KafkaStep{Topic: "t", Tail: 10}},
		schemas.StepFlink:   {Flink: &schemas.FlinkStep{Show: []string{"state"}}},
		schemas.StepCompose: {Compose: &schemas.ComposeStep{Action: "stop", Service: "taskmanager"}},
		schemas.StepLab:     {Lab: &schemas.LabStep{Action: "smoke"}},
		schemas.StepWait:    {Wait: &schemas.WaitStep{Duration: "30s"}},
		schemas.StepNote:    {Note: "Look."},
		schemas.StepUsage:   {Usage: &schemas.UsageStep{}},
	}
	l := &schemas.Lab{Stack: &schemas.Stack{Console: &schemas.Console{Port: 8088}}}
	e := &schemas.Experiment{Name: "e"}
	for _, k := range schemas.StepKinds {
		st, ok := steps[k.Name]
		if !ok {
			t.Errorf("no step of kind %s in this test: add one, and its prose to stepBody", k.Name)
			continue
		}
		st.Name, st.Kind = "s", k.Name
		var b strings.Builder
		stepBody(&b, l, e, st)
		if strings.TrimSpace(b.String()) == "" {
			t.Errorf("the runbook says nothing for a %s step", k.Name)
		}
	}
}
