package runner

import (
	"testing"

	"github.com/labgen/labgen/schemas"
)

// Every step kind schemas decodes can be run, and the runner knows no
// kind schemas does not.
func TestKindRunsCoverStepKinds(t *testing.T) {
	known := map[string]bool{}
	for _, k := range schemas.StepKinds {
		known[k.Name] = true
		kr, ok := kindRuns[k.Name]
		if !ok || kr.run == nil {
			t.Errorf("step kind %s has no run function in kindRuns", k.Name)
		}
		// A kind a wait may re-run has a result, whose default sample is
		// what a chart of the wait shows.
		if k.Rerun && kr.sample == nil {
			t.Errorf("step kind %s can be re-run by a wait but keeps no default sample", k.Name)
		}
	}
	for name := range kindRuns {
		if !known[name] {
			t.Errorf("kindRuns has %s, which is not a step kind of schemas.StepKinds", name)
		}
	}
}
