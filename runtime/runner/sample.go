package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// sampler keeps the samples of one step: as JSON for the record, and as
// cty for the step's own capture, expect and until (samples = [{ms, …}]).
type sampler struct {
	start   time.Time
	samples []record.Sample
	vals    []cty.Value
}

// take evaluates the step's sample expressions (or its kind's defaults)
// over one run's result and keeps them. A failed run is kept as a sample
// with its error, so that a chart shows the gap.
func (r *Runner) take(sm *sampler, e *schemas.Experiment, s *schemas.Step, kind string, out outcome) {
	at := r.now()
	rs := record.Sample{At: at.UTC(), MS: at.Sub(sm.start).Milliseconds()}
	obj := map[string]cty.Value{"ms": cty.NumberIntVal(rs.MS)}
	switch {
	case out.err != nil:
		rs.Error = r.masker.MaskString(out.err.Error())
	case out.value == cty.NilVal:
		rs.Error = "the run had no result"
	default:
		vals := map[string]cty.Value{}
		var errs []string
		if len(s.Samples) > 0 {
			for _, c := range s.Samples {
				v, diags := c.Expr.Eval(r.evalCtx(e.Name, out.value))
				if diags.HasErrors() {
					errs = append(errs, c.Name+": "+diagText(diags))
					continue
				}
				vals[c.Name] = v
			}
		} else {
			vals = defaultSample(kind, out.value)
		}
		rs.Values = map[string]json.RawMessage{}
		for k, v := range vals {
			if !v.IsWhollyKnown() {
				continue
			}
			b, err := json.Marshal(ctyjson.SimpleJSONValue{Value: v})
			if err != nil {
				errs = append(errs, k+": "+err.Error())
				continue
			}
			rs.Values[k] = b
			obj[k] = v
		}
		rs.Error = strings.Join(errs, "; ")
	}
	if rs.Error != "" {
		obj["error"] = cty.StringVal(rs.Error)
	}
	sm.samples = append(sm.samples, rs)
	sm.vals = append(sm.vals, cty.ObjectVal(obj))
}

func (sm *sampler) value() cty.Value {
	if sm == nil {
		return cty.EmptyTupleVal
	}
	return cty.TupleVal(append([]cty.Value(nil), sm.vals...))
}

// VertexLabel names a vertex in a series: its position and the start of
// its (often very long) Flink name.
func VertexLabel(i int, name string) string {
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > 32 {
		name = string(r[:32]) + "…"
	}
	return fmt.Sprintf("%d %s", i+1, name)
}

// sampleDetail says what a sampling step kept, for the record.
func sampleDetail(s *schemas.Step) string {
	if len(s.Samples) == 0 {
		return record.DefaultSamples
	}
	var names []string
	for _, c := range s.Samples {
		names = append(names, "`"+c.Name+" = "+strings.TrimSpace(c.Expr.Source)+"`")
	}
	return strings.Join(names, ", ")
}

// runKafkaOffsets probes a topic's start and end offsets per partition:
// {topic, partitions = [{partition, start, end}], end, records}.
func (r *Runner) runKafkaOffsets(ctx context.Context, k *schemas.KafkaStep, ran *record.Ran) outcome {
	ran.Detail = fmt.Sprintf("The start and end offsets of every partition of topic `%s`.", k.Topic)
	timeout := schemas.ParseDuration(k.Timeout)
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	timeout = r.capped(timeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.opt.Endpoints.Kafka...), kgo.DialTimeout(5*time.Second), kgo.RequestRetries(2))
	if err != nil {
		return outcome{ran: ran, err: err}
	}
	adm := kadm.NewClient(cl)
	defer adm.Close()
	starts, err := adm.ListStartOffsets(ctx, k.Topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return outcome{ran: ran, err: fmt.Errorf("the offsets of topic %s: %w", k.Topic, err)}
	}
	ends, err := adm.ListEndOffsets(ctx, k.Topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return outcome{ran: ran, err: fmt.Errorf("the offsets of topic %s: %w", k.Topic, err)}
	}
	type part struct {
		p          int32
		start, end int64
	}
	var parts []part
	starts.Each(func(s kadm.ListedOffset) {
		e, _ := ends.Lookup(k.Topic, s.Partition)
		parts = append(parts, part{s.Partition, s.Offset, e.Offset})
	})
	sort.Slice(parts, func(i, j int) bool { return parts[i].p < parts[j].p })
	t := record.Table{Columns: []string{"partition", "start", "end", "records"}}
	var vals []cty.Value
	var end, n int64
	for _, p := range parts {
		end += p.end
		n += p.end - p.start
		t.Rows = append(t.Rows, []string{fmt.Sprint(p.p), fmt.Sprint(p.start), fmt.Sprint(p.end), fmt.Sprint(p.end - p.start)})
		vals = append(vals, cty.ObjectVal(map[string]cty.Value{
			"partition": cty.NumberIntVal(int64(p.p)), "start": cty.NumberIntVal(p.start), "end": cty.NumberIntVal(p.end)}))
	}
	v := cty.ObjectVal(map[string]cty.Value{
		"topic":      cty.StringVal(k.Topic),
		"partitions": cty.TupleVal(vals),
		"end":        cty.NumberIntVal(end),
		"records":    cty.NumberIntVal(n),
	})
	o := &record.Output{Tables: []record.Table{t}, Notes: []string{fmt.Sprintf("End offsets sum to %d; %d records are kept (end − start).", end, n)}}
	return outcome{ran: ran, value: v, output: o, counts: map[string]int64{"end offset": end}}
}
