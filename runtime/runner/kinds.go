package runner

import (
	"context"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/schemas"
)

// kindRun is what the runner does with one kind of step; kindRuns has
// one for every kind of schemas.StepKinds (a test checks it).
type kindRun struct {
	// run executes a step of the kind, without its captures and
	// expectations.
	run func(r *Runner, ctx context.Context, e *schemas.Experiment, s *schemas.Step) outcome
	// sample puts into out what a sampling step keeps of one result when
	// it names nothing to sample: the numbers that tell whether something
	// moved. nil for kinds whose runs have no result of their own.
	sample func(v cty.Value, out map[string]cty.Value)
}

// kindRuns is set in init: runWait runs other steps through execute,
// which looks their kind up here.
var kindRuns map[string]kindRun

func init() {
	kindRuns = map[string]kindRun{
		schemas.StepQuery: {run: (*Runner).runQuery, sample: sampleQuery},
		schemas.StepKafka: {
			run: (*Runner).runKafka,
			sample: func(v cty.Value, out map[string]cty.Value) {
				put(out, "count", attr(v, "count"))
				put(out, "end", attr(v, "end"))
			},
		},
		schemas.StepFlink: {
			run: func(r *Runner, ctx context.Context, _ *schemas.Experiment, s *schemas.Step) outcome {
				return r.runFlink(ctx, s)
			},
			sample: sampleFlink,
		},
		schemas.StepCompose: {
			run: func(r *Runner, ctx context.Context, _ *schemas.Experiment, s *schemas.Step) outcome {
				return r.runCompose(ctx, s)
			},
		},
		schemas.StepLab: {
			run: func(r *Runner, ctx context.Context, _ *schemas.Experiment, s *schemas.Step) outcome {
				if s.Lab != nil && s.Lab.Action == "batch" {
					return r.runBatch(ctx, s)
				}
				return r.runSmoke(ctx, s)
			},
			sample: func(v cty.Value, out map[string]cty.Value) {
				put(out, "passed", attr(v, "passed"))
				put(out, "failed", attr(v, "failed"))
			},
		},
		// A wait's samples are those of the step it re-runs.
		schemas.StepWait: {run: (*Runner).runWait},
		schemas.StepUsage: {
			run: func(r *Runner, ctx context.Context, _ *schemas.Experiment, s *schemas.Step) outcome {
				return r.runUsage(ctx, s)
			},
			sample: func(v cty.Value, out map[string]cty.Value) { put(out, "cpu_s", attr(v, "cpu_s")) },
		},
		schemas.StepNote: {
			run: func(*Runner, context.Context, *schemas.Experiment, *schemas.Step) outcome { return outcome{} },
		},
	}
}

// defaultSample is what a sampling step keeps of one result of a step of
// that kind when it names nothing to sample.
func defaultSample(kind string, v cty.Value) map[string]cty.Value {
	out := map[string]cty.Value{}
	if k := kindRuns[kind]; k.sample != nil {
		k.sample(v, out)
	}
	return out
}

// attr is the value at a path of object attributes, or cty.NilVal.
func attr(o cty.Value, names ...string) cty.Value {
	for _, n := range names {
		if o.IsNull() || !o.Type().IsObjectType() || !o.Type().HasAttribute(n) {
			return cty.NilVal
		}
		o = o.GetAttr(n)
	}
	return o
}

func put(out map[string]cty.Value, k string, v cty.Value) {
	if v != cty.NilVal {
		out[k] = v
	}
}

// sampleQuery keeps of one row (a count, a max) each column, of more rows
// their number.
func sampleQuery(v cty.Value, out map[string]cty.Value) {
	rows := attr(v, "rows")
	if rows != cty.NilVal && rows.LengthInt() == 1 {
		row := rows.Index(cty.NumberIntVal(0))
		for k, c := range row.AsValueMap() {
			if c.IsNull() || c.Type() == cty.Number || c.Type() == cty.String || c.Type() == cty.Bool {
				out[k] = c
			}
		}
		return
	}
	put(out, "rows", attr(v, "row_count"))
}

// sampleFlink keeps the number of jobs, or one job's state, restarts,
// checkpoints, each vertex's records in and out, and its backpressure and
// busy time when they were asked.
func sampleFlink(v cty.Value, out map[string]cty.Value) {
	if attr(v, "jobs") != cty.NilVal {
		put(out, "jobs", attr(v, "count"))
		return
	}
	put(out, "state", attr(v, "state"))
	put(out, "restarts", attr(v, "restarts"))
	put(out, "checkpoints", attr(v, "checkpoints", "completed"))
	if vs := attr(v, "vertices"); vs != cty.NilVal && vs.LengthInt() > 0 {
		in, outs := map[string]cty.Value{}, map[string]cty.Value{}
		bp, busy := map[string]cty.Value{}, map[string]cty.Value{}
		for i, x := range vs.AsValueSlice() {
			n := VertexLabel(i, x.GetAttr("name").AsString())
			in[n], outs[n] = x.GetAttr("records_in"), x.GetAttr("records_out")
			// Measured only when the step shows backpressure.
			if b := attr(x, "backpressure"); b != cty.NilVal && !b.IsNull() {
				bp[n], busy[n] = b, x.GetAttr("busy")
			}
		}
		out["records_in"], out["records_out"] = cty.ObjectVal(in), cty.ObjectVal(outs)
		if len(bp) > 0 {
			out["backpressure"], out["busy"] = cty.ObjectVal(bp), cty.ObjectVal(busy)
		}
	}
}
