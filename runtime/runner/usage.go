package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// UsageReader is a face that can say what its services used so far (the
// native stack's client: process groups summed from /proc). On a face
// that is not one a usage step is skipped, saying why (stepOrSkip), and
// the measures that read it are not measured.
type UsageReader interface {
	ServiceUsage() (cpu map[string]time.Duration, rss map[string]int64, err error)
}

// errNoUsage: compose and Kubernetes keep their services' processes out of
// labgen's sight.
var errNoUsage = errors.New("a usage step reads the native stack's processes; this run's services are not local processes (run with --native)")

// usageReader is the run's face when it can answer a usage step.
func (r *Runner) usageReader() (UsageReader, bool) {
	u, ok := r.opt.Compose.(UsageReader)
	return u, ok && u != nil
}

func (r *Runner) runUsage(_ context.Context, s *schemas.Step) outcome {
	ran := &record.Ran{What: "usage", Command: "CPU time and resident memory of each service's process group, from /proc"}
	u, ok := r.usageReader()
	if !ok {
		return outcome{ran: ran, err: fixed(errNoUsage, "no usage on this face")}
	}
	at := r.now()
	cpu, rss, err := u.ServiceUsage()
	if err != nil {
		return outcome{ran: ran, err: err}
	}
	v, t := usageValue(at, cpu, rss, s.Usage.Services)
	return outcome{ran: ran, value: v, output: &record.Output{Tables: []record.Table{t}}, counts: map[string]int64{}}
}

// usageValue is a usage step's result, { at_ms, cpu_s, rss_mb }, and its
// table: the services asked for (all when none) that run, by name.
func usageValue(at time.Time, cpu map[string]time.Duration, rss map[string]int64, only []string) (cty.Value, record.Table) {
	var names []string
	for n := range cpu {
		if len(only) == 0 || slices.Contains(only, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	cs, ms := map[string]cty.Value{}, map[string]cty.Value{}
	t := record.Table{Columns: []string{"service", "CPU time", "memory"}}
	for _, n := range names {
		cs[n] = cty.NumberFloatVal(cpu[n].Seconds())
		ms[n] = cty.NumberIntVal(rss[n] >> 20)
		t.Rows = append(t.Rows, []string{n, fmt.Sprintf("%.2f s", cpu[n].Seconds()), fmt.Sprintf("%d MiB", rss[n]>>20)})
	}
	obj := func(m map[string]cty.Value) cty.Value {
		if len(m) == 0 {
			return cty.EmptyObjectVal
		}
		return cty.ObjectVal(m)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"at_ms":  cty.NumberIntVal(at.UnixMilli()),
		"cpu_s":  obj(cs),
		"rss_mb": obj(ms),
	}), t
}
