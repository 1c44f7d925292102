package schemas

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/sqlread"
)

// StepKind is one kind of step: how a lab writes it, how it is decoded,
// and what the runtime may do with it. StepKinds is the one list of them:
// the decoder reads it, and the runner (what each kind does) and the
// runbook (what each kind tells the reader) keep one entry per kind,
// which their tests check against this list.
//
// A new kind is its constant, its part of Step and its entry here; its
// entry in the runner's kindRuns (what it does, what a series keeps of
// its result); and its prose in the runbook's stepBody. The decoder,
// validation, captures, samples, waits and the gating on captured values
// need nothing else.
type StepKind struct {
	// Name is Step.Kind and the step attribute that selects the kind.
	Name string
	// Also are further attributes that select it (a query step's sql).
	Also []string
	// Form is how a step of this kind is written, for messages.
	Form string
	// Rerun tells whether a wait may re-run a step of this kind until a
	// condition over its result holds.
	Rerun bool
	// result tells whether a step of this kind gives a result to capture,
	// sample and check expectations on; nil means always.
	result func(*Step) bool
	// inputs are the captured values the step needs before it can run
	// (its captures and expectations are not inputs: they fail on their
	// own without stopping the step); nil means none.
	inputs func(*Experiment, *Step) []Ref
	// unavailable says what the step needs that the lab's stack leaves
	// out (the experiment is then unavailable), or ""; nil means nothing.
	unavailable func(d *decoder, s *Step) string
	// own are the attributes that only a step of this kind takes.
	own []ownAttr
	// untimed, when set, says why the step's timeout bounds nothing for
	// this kind and what to write instead; the loader refuses it there.
	untimed string
	// decode sets the kind's part of s from the step's attributes.
	decode func(d *decoder, at hcl.Attributes, s *Step, e *Experiment)
}

// ownAttr is an attribute of one step kind; detail says why it does not
// belong to a step of another kind (%s: that kind).
type ownAttr struct{ name, summary, detail string }

// Step kinds, as Step.Kind spells them.
const (
	StepQuery   = "query"
	StepKafka   = "kafka"
	StepFlink   = "flink"
	StepCompose = "compose"
	StepLab     = "lab"
	StepWait    = "wait"
	StepNote    = "note"
	StepUsage   = "usage"
)

// StepKinds lists every step kind, in the order messages name them.
// (Set in init: the wait's decoder looks kinds up in this list.)
var StepKinds []*StepKind

func never(*Step) bool { return false }

func init() {
	StepKinds = []*StepKind{
		{
			Name: StepQuery, Also: []string{"sql"}, Form: "query (a preset) or engine + sql", Rerun: true,
			inputs: func(_ *Experiment, s *Step) []Ref {
				if s.Query == nil {
					return nil
				}
				return s.Query.SQL.Refs
			},
			own: []ownAttr{
				{"max_rows", "max_rows outside a query", "max_rows bounds a query step's output; this is a %s step."},
				{"engine", "engine outside a query", "engine belongs to a query step with its own sql."},
				{"compare", "compare outside a query", "compare sets the values of a query's column beside a declared distribution; this is a %s step."},
			},
			decode: decodeQueryStep,
			unavailable: func(d *decoder, s *Step) string {
				if s.Query == nil {
					return ""
				}
				if p := d.lab.Preset(s.Query.Preset); p != nil && p.Unavailable != "" {
					return fmt.Sprintf("uses preset %s, which %s", p.Name, p.Unavailable)
				}
				if s.Query.Engine != "" && !d.lab.Stack.Has(s.Query.Engine) {
					return d.missing(s.Query.Engine)
				}
				return ""
			},
		},
		{
			Name: StepKafka, Form: "kafka", Rerun: true,
			untimed: "A kafka step reads for kafka = { timeout = \"10s\" } (its default); write the timeout there.",
			inputs: func(_ *Experiment, s *Step) []Ref {
				if s.Kafka == nil || s.Kafka.Key == nil {
					return nil
				}
				return s.Kafka.Key.Refs
			},
			decode: func(d *decoder, at hcl.Attributes, s *Step, _ *Experiment) {
				s.Kafka = d.decodeKafkaStep(at[StepKafka])
			},
		},
		{
			Name: StepFlink, Form: "flink", Rerun: true,
			decode: func(d *decoder, at hcl.Attributes, s *Step, _ *Experiment) {
				s.Flink = d.decodeFlinkStep(at[StepFlink])
			},
			unavailable: func(d *decoder, s *Step) string {
				if d.lab.Stack.Flink == nil {
					return d.missing("flink")
				}
				if s.Flink != nil && s.Flink.Job != "" {
					if j := d.lab.Job(s.Flink.Job); j != nil && j.Unavailable != "" {
						return fmt.Sprintf("shows job %s, which %s", j.Name, j.Unavailable)
					}
				}
				return ""
			},
		},
		{
			Name: StepCompose, Form: "compose", result: never,
			decode: func(d *decoder, at hcl.Attributes, s *Step, _ *Experiment) {
				s.Compose = d.decodeComposeStep(at[StepCompose])
			},
		},
		{
			Name: StepLab, Form: "lab", Rerun: true,
			decode: func(d *decoder, at hcl.Attributes, s *Step, _ *Experiment) {
				s.Lab = &LabStep{Action: d.oneOf(at[StepLab], "smoke", "smoke", "batch")}
			},
			// The batch jobs run on Flink.
			unavailable: func(d *decoder, s *Step) string {
				if d.lab.Stack.Flink == nil && s.Lab != nil && s.Lab.Action == "batch" {
					return d.missing("flink")
				}
				return ""
			},
		},
		{
			// A wait that re-runs a step has that step's result; it needs
			// what that step needs, and what its until uses.
			Name: StepWait, Form: "wait",
			untimed: "A wait is bounded by itself: wait = \"30s\", or { rerun = step.NAME, until = …, timeout = \"2m\" }; write the timeout there.",
			result:  func(s *Step) bool { return s.Wait == nil || s.Wait.Rerun != "" },
			inputs: func(e *Experiment, s *Step) []Ref {
				if s.Wait == nil {
					return nil
				}
				var out []Ref
				if t := e.Step(s.Wait.Rerun); s.Wait.Rerun != "" && t != nil && t != s {
					out = append(out, e.Inputs(t)...)
				}
				if s.Wait.Until != nil {
					out = append(out, s.Wait.Until.Refs...)
				}
				return out
			},
			decode: func(d *decoder, at hcl.Attributes, s *Step, e *Experiment) {
				s.Wait = d.decodeWaitStep(at[StepWait], e)
			},
		},
		{
			// Rerun: a wait may sample it, a CPU time series.
			Name: StepUsage, Form: "usage", Rerun: true,
			decode: func(d *decoder, at hcl.Attributes, s *Step, _ *Experiment) {
				s.Usage = d.decodeUsageStep(at[StepUsage])
			},
		},
		{
			Name: StepNote, Form: "note", result: never,
			untimed: "A note only prints its text; it has nothing to time out.",
			decode:  func(d *decoder, at hcl.Attributes, s *Step, _ *Experiment) { s.Note = trimText(d.str(at[StepNote])) },
		},
	}
	stepSchema = newStepSchema()
}

// KindOf is the step kind of that name, or nil.
func KindOf(name string) *StepKind {
	for _, k := range StepKinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// HasResult tells whether the step's runs give a result: something to
// capture, sample and check expectations on.
func (s *Step) HasResult() bool {
	k := KindOf(s.Kind)
	return k != nil && (k.result == nil || k.result(s))
}

// Inputs are the captured values step s of e needs before it can run:
// those in its SQL or Kafka key, and for a wait, those of the step it
// re-runs and of its until. They were found when the lab was loaded.
func (e *Experiment) Inputs(s *Step) []Ref {
	k := KindOf(s.Kind)
	if k == nil || k.inputs == nil {
		return nil
	}
	return k.inputs(e, s)
}

// rerunKinds names the kinds a wait may re-run, for messages.
func rerunKinds() []string {
	var out []string
	for _, k := range StepKinds {
		if k.Rerun {
			out = append(out, k.Name)
		}
	}
	return out
}

var stepSchema *hcl.BodySchema

// newStepSchema is a step block's schema: what every step takes, and
// each kind's attributes.
func newStepSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "title"}, {Name: "text"}, {Name: "capture"}, {Name: "sample"}, {Name: "timeout"}, {Name: "on_failure"},
		},
		Blocks: []hcl.BlockHeaderSchema{{Type: "expect"}},
	}
	for _, k := range StepKinds {
		for _, a := range append([]string{k.Name}, k.Also...) {
			s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a})
		}
		for _, o := range k.own {
			s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: o.name})
		}
	}
	return s
}

// stepKind finds the one kind a step's attributes select.
func (d *decoder) stepKind(b *hcl.Block, name string, at hcl.Attributes) *StepKind {
	var kinds []*StepKind
	var names, forms []string
	for _, k := range StepKinds {
		forms = append(forms, k.Form)
		for _, a := range append([]string{k.Name}, k.Also...) {
			if at[a] != nil {
				kinds, names = append(kinds, k), append(names, k.Name)
				break
			}
		}
	}
	switch {
	case len(kinds) == 0:
		d.errorf(b.DefRange, "Step does nothing", "Step %s needs exactly one of: %s.", name, strings.Join(forms, ", "))
		return nil
	case len(kinds) > 1:
		d.errorf(b.DefRange, "Step does several things", "Step %s sets %s; a step does exactly one thing, so split it into several steps.", name, strings.Join(names, " and "))
		return nil
	}
	return kinds[0]
}

// checkOwn reports the attributes of other kinds that step s sets.
func (d *decoder) checkOwn(at hcl.Attributes, s *Step) {
	for _, k := range StepKinds {
		if k.Name == s.Kind {
			continue
		}
		for _, o := range k.own {
			if a := at[o.name]; a != nil {
				d.errorf(a.Expr.Range(), o.summary, "%s", strings.ReplaceAll(o.detail, "%s", s.Kind))
			}
		}
	}
}

func decodeQueryStep(d *decoder, at hcl.Attributes, s *Step, _ *Experiment) {
	q := &QueryStep{MaxRows: d.atLeast(at["max_rows"], 1, 20)}
	if qa := at["query"]; qa != nil {
		if at["sql"] != nil {
			d.errorf(at["sql"].Expr.Range(), "Preset and SQL", "A query step runs either a preset (query = preset.name) or its own SQL (engine + sql), not both.")
		}
		name, ok := d.ref(qa.Expr, "preset")
		if ok {
			p := d.lab.Preset(name)
			if p == nil {
				d.errorf(qa.Expr.Range(), "Reference to undeclared preset", "No preset named %q is declared in this lab.%s", name, d.presetHint(name))
			} else {
				q.Preset, q.Engine, q.SQL = name, p.Engine, Expr{Text: p.SQL}
			}
		}
		if at["engine"] != nil {
			d.errorf(at["engine"].Expr.Range(), "Engine of a preset", "The preset says which engine it runs on; remove engine here.")
		}
	} else {
		if at["engine"] == nil {
			d.errorf(at["sql"].Expr.Range(), "Missing engine", "A query step with its own SQL says where it runs: engine = \"mysql\", \"postgres\" or \"clickhouse\".")
		}
		q.Engine = d.oneOf(at["engine"], "", EngineMySQL, EnginePostgres, EngineClickHouse)
		q.SQL = d.expr(at["sql"], cty.String, false)
		// SQL that needs captured values is checked by the runtime.
		readOnly := true
		if !q.SQL.Deferred() && q.SQL.Text != "" && q.Engine != "" {
			if err := sqlread.Check(q.Engine, q.SQL.Text); err != nil {
				d.errorf(at["sql"].Expr.Range(), "Query is not read-only", "Step %s must run a single read-only statement: %s.", s.Name, err)
				readOnly = false
			}
		}
		// The tables it names, also in SQL with captured values in it.
		if readOnly && q.Engine != "" && at["sql"] != nil {
			text := strings.TrimSpace(q.SQL.Text)
			d.checkSQLTables("The SQL of step "+s.Name, q.Engine, text, d.sqlSourceOf(at["sql"], text))
		}
	}
	s.Query = q
}

// Step is one action of an experiment. Exactly one of the kind-specific
// parts is set, named by Kind.
type Step struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Title string `json:"title,omitempty"`
	// Text tells the reader what to do or look at.
	Text    string       `json:"text,omitempty"`
	Query   *QueryStep   `json:"query,omitempty"`
	Kafka   *KafkaStep   `json:"kafka,omitempty"`
	Flink   *FlinkStep   `json:"flink,omitempty"`
	Compose *ComposeStep `json:"compose,omitempty"`
	Lab     *LabStep     `json:"lab,omitempty"`
	Wait    *WaitStep    `json:"wait,omitempty"`
	Usage   *UsageStep   `json:"usage,omitempty"`
	Note    string       `json:"note,omitempty"`
	// Captures are evaluated over the step's result; later steps use them
	// as step.<name>.<capture>, later experiments as
	// experiment.<experiment>.<step>.<capture>.
	Captures []*Capture `json:"captures,omitempty"`
	// Samples name values kept from every run of the step (a re-running
	// wait samples each run; another step, its one run), as a time series
	// in the record. A sampling step's capture and expect see them as
	// samples = [{ms, <name> = value, …}].
	Samples []*Capture `json:"samples,omitempty"`
	// Compare sets a query step's values beside a distribution the
	// producer declares (generator input vs observed).
	Compare *CompareStep `json:"compare,omitempty"`
	Expects []*Expect    `json:"expects,omitempty"`
	// Timeout bounds the step ("" means the runtime's default).
	Timeout string `json:"timeout,omitempty"`
	// OnFailure is "continue" (default) or "stop" (skip the rest of the
	// experiment).
	OnFailure string    `json:"on_failure"`
	DeclRange hcl.Range `json:"-"`
}

// QueryStep runs SQL on an engine, either a preset or its own SQL.
type QueryStep struct {
	Engine string `json:"engine"`
	Preset string `json:"preset,omitempty"`
	SQL    Expr   `json:"sql"`
	// MaxRows bounds the output kept in the record.
	MaxRows int `json:"max_rows"`
}

// KafkaStep reads the messages of one key, or the tail of a topic.
type KafkaStep struct {
	Topic string `json:"topic"`
	Key   *Expr  `json:"key,omitempty"`
	Tail  int    `json:"tail,omitempty"`
	// Offsets probes the topic's offsets instead of reading messages.
	Offsets bool   `json:"offsets,omitempty"`
	Max     int    `json:"max"`
	Timeout string `json:"timeout"`
}

// FlinkStep shows a job's state from the Flink REST API.
type FlinkStep struct {
	Job  string   `json:"job,omitempty"`
	Show []string `json:"show"`
}

// ComposeStep stops, starts, restarts, pauses or unpauses one service.
type ComposeStep struct {
	Action  string `json:"action"`
	Service string `json:"service"`
}

// UsageStep reads what the stack's services have used so far: each one's
// CPU time and resident memory (the native stack's process groups).
// Services empty means every service that runs.
type UsageStep struct {
	Services []string `json:"services,omitempty"`
}

// LabStep runs the lab's smoke checks or its batch jobs.
type LabStep struct {
	Action string `json:"action"`
}

// WaitStep waits a duration, or re-runs an earlier step until a condition
// over its result holds.
type WaitStep struct {
	Duration string `json:"duration,omitempty"`
	Rerun    string `json:"rerun,omitempty"`
	Until    *Expr  `json:"until,omitempty"`
	Interval string `json:"interval,omitempty"`
	Timeout  string `json:"timeout,omitempty"`
}

// orList joins words as "a, b, c or d".
func orList(xs []string) string { return joinList(xs, "or") }

// joinList joins words as "a, b, c conj d".
func joinList(xs []string, conj string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " " + conj + " " + xs[len(xs)-1]
}
