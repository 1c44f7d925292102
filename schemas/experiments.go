package schemas

import (
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

var experimentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "number", Required: true}, {Name: "title", Required: true}, {Name: "question"},
		{Name: "intro"}, {Name: "record"}, {Name: "expected"}, {Name: "interpretation"}, {Name: "needs"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "step", LabelNames: []string{"name"}}, {Type: "measure", LabelNames: []string{"name"}}},
}

var measureSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "title", Required: true}, {Name: "value", Required: true}, {Name: "unit"},
		{Name: "samples"}, {Name: "window"}, {Name: "resolution"},
	},
}

var expectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "message", Required: true}, {Name: "detects"}, {Name: "sanity"}},
}

// deferredRef is a run-time expression to check once all experiments are
// known, since captures may come from earlier experiments.
type deferredRef struct {
	expr        hcl.Expression
	exp         *Experiment
	step        int
	allowResult bool
}

func (d *decoder) decodeExperiment(b *hcl.Block) *Experiment {
	name := b.Labels[0]
	if !d.checkName(name, b.LabelRanges[0], "experiment") {
		return nil
	}
	if prev, ok := d.experiments[name]; ok {
		d.errorf(b.LabelRanges[0], "Duplicate experiment", "An experiment named %q was already declared at %s.", name, prev)
		return nil
	}
	d.experiments[name] = b.DefRange
	content, diags := b.Body.Content(experimentSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	at := content.Attributes
	e := &Experiment{Name: name, DeclRange: b.DefRange}
	e.Number = d.atLeast(at["number"], 0, 0)
	e.Title = d.str(at["title"])
	e.Question = trimText(d.str(at["question"]))
	e.Intro = trimText(d.str(at["intro"]))
	e.Record = d.strList(at["record"])
	e.Expected = trimText(d.str(at["expected"]))
	e.Interpretation = trimText(d.str(at["interpretation"]))
	var needRanges []hcl.Range
	e.Needs, needRanges = d.refList(at["needs"], "job")
	for i, n := range e.Needs {
		if d.lab.Job(n) == nil {
			d.errorf(needRanges[i], "Reference to undeclared job", "No job named %q is declared in this lab.%s", n, d.jobHint(n))
		}
	}
	seen := map[string]hcl.Range{}
	var measures []*hcl.Block
	for _, sb := range content.Blocks {
		if sb.Type == "measure" {
			measures = append(measures, sb)
			continue
		}
		sname := sb.Labels[0]
		if !d.checkName(sname, sb.LabelRanges[0], "step") {
			continue
		}
		if prev, ok := seen[sname]; ok {
			d.errorf(sb.LabelRanges[0], "Duplicate step", "Experiment %s already has a step %q at %s.", name, sname, prev)
			continue
		}
		seen[sname] = sb.DefRange
		if s := d.decodeStep(sb, e); s != nil {
			e.Steps = append(e.Steps, s)
		}
	}
	if len(e.Steps) == 0 {
		d.errorf(b.DefRange, "Experiment without steps", "Experiment %s has no step blocks; add at least one, even a note.", name)
	}
	d.decodeMeasures(e, measures)
	return e
}

// decodeMeasures reads an experiment's measure blocks: named numbers
// computed, once its steps have run, from what they captured.
func (d *decoder) decodeMeasures(e *Experiment, blocks []*hcl.Block) {
	seen := map[string]hcl.Range{}
	// A measure sees the captures of every step of its experiment.
	defer func() { d.currentStep = nil }()
	d.currentStep = &deferredRef{exp: e, step: len(e.Steps)}
	for _, mb := range blocks {
		name := mb.Labels[0]
		if !d.checkName(name, mb.LabelRanges[0], "measure") {
			continue
		}
		if prev, ok := seen[name]; ok {
			d.errorf(mb.LabelRanges[0], "Duplicate measure", "Experiment %s already has a measure %q at %s.", e.Name, name, prev)
			continue
		}
		seen[name] = mb.DefRange
		mc, diags := mb.Body.Content(measureSchema)
		d.diags = append(d.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		m := &Measure{Name: name, Title: d.str(mc.Attributes["title"]), Unit: d.str(mc.Attributes["unit"]), DeclRange: mb.DefRange}
		m.Value = d.expr(mc.Attributes["value"], cty.Number, false)
		if len(m.Value.Refs) == 0 {
			d.errorf(mc.Attributes["value"].Expr.Range(), "Measure of nothing", "A measure is computed from what the experiment's steps captured, such as value = step.wait_for_join.took_ms / 1000; this value uses no capture.")
		}
		m.Samples = d.measureDetail(mc.Attributes["samples"])
		m.Window = d.measureDetail(mc.Attributes["window"])
		m.Resolution = d.measureDetail(mc.Attributes["resolution"])
		e.Measures = append(e.Measures, m)
	}
}

func (d *decoder) decodeStep(b *hcl.Block, e *Experiment) *Step {
	content, diags := b.Body.Content(stepSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	at := content.Attributes
	s := &Step{Name: b.Labels[0], DeclRange: b.DefRange}
	s.Title = d.str(at["title"])
	s.Text = trimText(d.str(at["text"]))
	s.OnFailure = d.oneOf(at["on_failure"], "continue", "continue", "stop")
	s.Timeout = d.duration(at["timeout"], "")

	kind := d.stepKind(b, s.Name, at)
	if kind == nil {
		return nil
	}
	s.Kind = kind.Name
	defer func() { d.currentStep = nil }()
	d.currentStep = &deferredRef{exp: e, step: len(e.Steps)}
	kind.decode(d, at, s, e)
	d.checkOwn(at, s)
	if ta := at["timeout"]; ta != nil && kind.untimed != "" {
		d.errorf(ta.NameRange, "Timeout of a "+kind.Name+" step", "%s", kind.untimed)
	}

	if ca := at["capture"]; ca != nil {
		s.Captures = d.namedExprs(ca, s.Name, "capture")
		if !s.HasResult() {
			d.errorf(ca.Expr.Range(), "Nothing to capture", "A %s step has no result to capture from.", s.Kind)
		}
	}
	if sa := at["sample"]; sa != nil {
		s.Samples = d.namedExprs(sa, s.Name, "sample")
		if !s.HasResult() {
			d.errorf(sa.Expr.Range(), "Nothing to sample", "A %s step has no result to sample; sample a %s step, or a wait that re-runs one.", s.Kind, orList(rerunKinds()))
		}
	}
	if ca := at["compare"]; ca != nil {
		s.Compare = d.decodeCompare(ca)
	}
	for _, xb := range content.Blocks {
		xc, diags := xb.Body.Content(expectSchema)
		d.diags = append(d.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		c := d.runExpr(xc.Attributes["condition"], cty.Bool)
		if !s.HasResult() {
			d.errorf(xb.DefRange, "Nothing to check", "A %s step has no result for an expectation to check; put the expect on the step whose result it reads, or on a wait that re-runs it.", s.Kind)
		}
		ma := xc.Attributes["message"]
		x := &Expect{Condition: c, Message: d.str(ma), MessageRange: ma.Expr.Range()}
		d.keepSyntax(&x.Condition, xc.Attributes["condition"].Expr)
		d.decodeExpectControl(xc.Attributes, x)
		x.DeclRange = xb.DefRange
		s.Expects = append(s.Expects, x)
	}
	return s
}

// namedExprs decodes capture = { … } and sample = { … }: lowercase names,
// each an expression over result evaluated at run time.
func (d *decoder) namedExprs(a *hcl.Attribute, step, what string) []*Capture {
	pairs, diags := hcl.ExprMap(a.Expr)
	d.diags = append(d.diags, diags...)
	seen := map[string]hcl.Range{}
	var out []*Capture
	for _, kv := range pairs {
		key := hcl.ExprAsKeyword(kv.Key)
		if key == "" || !namePattern.MatchString(key) {
			d.errorf(kv.Key.Range(), "Invalid "+what+" name", "%s names are lowercase identifiers, as in %s = { order_id = result.rows[0].order_id }.", strings.ToUpper(what[:1])+what[1:], what)
			continue
		}
		if prev, dup := seen[key]; dup {
			d.errorf(kv.Key.Range(), "Duplicate "+what, "Step %s already %ss %s at %s.", step, what, key, prev)
			continue
		}
		seen[key] = kv.Key.Range()
		if what == "sample" {
			for _, tr := range kv.Value.Variables() {
				if tr.RootName() == "samples" {
					d.errorf(tr.SourceRange(), "samples is not available here", "A sample is taken from each run's result; samples, the runs taken so far, is for the step's capture and expect.")
				}
			}
		}
		x := d.runExpr(&hcl.Attribute{Name: key, Expr: kv.Value, Range: kv.Value.Range()}, cty.DynamicPseudoType)
		out = append(out, &Capture{Name: key, Expr: x})
	}
	return out
}

// expr decodes a value that may depend on a run: if it refers to step,
// experiment or result it is kept as source for the runtime (and its
// references are checked later); otherwise it is evaluated now.
func (d *decoder) expr(a *hcl.Attribute, ty cty.Type, allowResult bool) Expr {
	if a == nil {
		return Expr{}
	}
	deferred := false
	for _, tr := range a.Expr.Variables() {
		switch tr.RootName() {
		case "step", "experiment", "result", "samples":
			deferred = true
		}
	}
	if !deferred {
		if ty == cty.DynamicPseudoType {
			v, diags := a.Expr.Value(d.ctx)
			d.diags = append(d.diags, diags...)
			return Expr{Text: displayValue(v), Range: a.Expr.Range()}
		}
		v, ok := d.value(a, ty, typeWord(ty))
		if !ok {
			return Expr{Range: a.Expr.Range()}
		}
		return Expr{Text: displayValue(v), Range: a.Expr.Range()}
	}
	ref := *d.currentStep
	ref.expr, ref.allowResult = a.Expr, allowResult
	d.deferred = append(d.deferred, ref)
	text := templateText(d, a.Expr)
	if p, ok := d.placeholderText(a.Expr); ok {
		text = p
	}
	return Expr{Source: exprSource(d, a.Expr), Text: text, Refs: capturedRefs(a.Expr, ref.exp.Name), Range: a.Expr.Range()}
}

// runExpr decodes a capture, sample, expect condition or wait until. A run
// evaluates these even when they use no run-time value (the loader has
// then evaluated them already), so their calls are checked against the
// run's functions too; checkDeferred checks the others'.
func (d *decoder) runExpr(a *hcl.Attribute, ty cty.Type) Expr {
	if a == nil {
		return Expr{}
	}
	x := d.expr(a, ty, true)
	if !x.Deferred() {
		d.checkCalls(a.Expr, true)
	}
	x.Source = exprSource(d, a.Expr)
	return x
}

// capturedRefs lists the captured values an expression of experiment exp
// uses, each once, in the order written: step.S.C (of exp) and
// experiment.E.S.C. Whether they exist is checked with the rest of the
// lab (checkDeferred); an incomplete reference is reported there.
func capturedRefs(x hcl.Expression, exp string) []Ref {
	var out []Ref
	seen := map[Ref]bool{}
	for _, tr := range x.Variables() {
		names := attrNames(tr)
		var r Ref
		switch {
		case tr.RootName() == "step" && len(names) >= 2:
			r = Ref{Experiment: exp, Step: names[0], Name: names[1], Text: "step." + names[0] + "." + names[1]}
		case tr.RootName() == "experiment" && len(names) >= 3:
			r = Ref{Experiment: names[0], Step: names[1], Name: names[2], Text: "experiment." + names[0] + "." + names[1] + "." + names[2]}
		default:
			continue
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// attrNames are the attribute names after a traversal's root, up to the
// first step that is not one (step.pick.order_id: pick, order_id).
func attrNames(tr hcl.Traversal) []string {
	var names []string
	for _, t := range tr[1:] {
		a, ok := t.(hcl.TraverseAttr)
		if !ok {
			break
		}
		names = append(names, a.Name)
	}
	return names
}

// numberMark wraps the placeholder of a capture known to be a number
// (capturesNumber): where jsonencode quoted it, the quotes go, as a run
// writes the number bare. jsonencode escapes the control character
// (\u0001), so its quotes are told from quotes the lab wrote around a
// placeholder itself; sql_string leaves it as it is.
const numberMark = "\x01"

// placeholderText evaluates a deferred string with each captured value
// replaced by a description of it, such as <order_id from step pick>: what
// a reader of the runbook types in by hand.
func (d *decoder) placeholderText(e hcl.Expression) (string, bool) {
	steps := map[string]map[string]cty.Value{}
	exps := map[string]map[string]map[string]cty.Value{}
	placeholder := func(text string, number bool) cty.Value {
		if number {
			text = numberMark + text + numberMark
		}
		return cty.StringVal(text)
	}
	var current *Experiment
	if d.currentStep != nil {
		current = d.currentStep.exp
	}
	for _, tr := range e.Variables() {
		names := attrNames(tr)
		switch {
		case tr.RootName() == "step" && len(names) >= 2:
			if steps[names[0]] == nil {
				steps[names[0]] = map[string]cty.Value{}
			}
			steps[names[0]][names[1]] = placeholder("<"+names[1]+" from step "+names[0]+">", d.capturesNumber(current, names[0], names[1]))
		case tr.RootName() == "experiment" && len(names) >= 3:
			if exps[names[0]] == nil {
				exps[names[0]] = map[string]map[string]cty.Value{}
			}
			if exps[names[0]][names[1]] == nil {
				exps[names[0]][names[1]] = map[string]cty.Value{}
			}
			exps[names[0]][names[1]][names[2]] = placeholder("<"+names[2]+" from experiment "+names[0]+", step "+names[1]+">", d.capturesNumber(d.lab.Experiment(names[0]), names[1], names[2]))
		case tr.RootName() == "var":
		default:
			return "", false
		}
	}
	stepObj := map[string]cty.Value{}
	for k, v := range steps {
		stepObj[k] = cty.ObjectVal(v)
	}
	expObj := map[string]cty.Value{}
	for k, v := range exps {
		inner := map[string]cty.Value{}
		for s, caps := range v {
			inner[s] = cty.ObjectVal(caps)
		}
		expObj[k] = cty.ObjectVal(inner)
	}
	ctx := d.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{"step": cty.ObjectVal(stepObj), "experiment": cty.ObjectVal(expObj)}
	v, diags := e.Value(ctx)
	if diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
		return "", false
	}
	// jsonencode escapes the angle brackets of the placeholders.
	out := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(v.AsString())
	out = strings.NewReplacer(`"\u0001`, "", `\u0001"`, "", numberMark, "").Replace(out)
	return strings.TrimSpace(out), true
}

func typeWord(ty cty.Type) string {
	switch ty {
	case cty.String:
		return "a string"
	case cty.Bool:
		return "true or false"
	case cty.Number:
		return "a number"
	}
	return ty.FriendlyName()
}

// displayValue renders a static value for the runbook.
func displayValue(v cty.Value) string {
	if v.IsNull() || !v.IsKnown() {
		return ""
	}
	switch v.Type() {
	case cty.String:
		return v.AsString()
	case cty.Number:
		return v.AsBigFloat().Text('g', -1)
	case cty.Bool:
		if v.True() {
			return "true"
		}
		return "false"
	}
	return ""
}

// exprSource is the expression's own source text.
func exprSource(d *decoder, e hcl.Expression) string {
	r := e.Range()
	f := d.parser.Files()[r.Filename]
	if f == nil || r.End.Byte > len(f.Bytes) {
		return ""
	}
	src := string(f.Bytes[r.Start.Byte:r.End.Byte])
	if strings.HasPrefix(src, "<<") && !strings.HasSuffix(src, "\n") {
		// A heredoc's range ends at its closing marker, but HCL parses it
		// only with the newline that follows.
		src += "\n"
	}
	return src
}

// templateText renders a template with ${...} left in place: what the
// reader sees in the runbook before a run fills the values in.
func templateText(d *decoder, e hcl.Expression) string {
	var parts []hclsyntax.Expression
	switch t := e.(type) {
	case *hclsyntax.TemplateExpr:
		parts = t.Parts
	case *hclsyntax.TemplateWrapExpr:
		return "${" + exprSource(d, t.Wrapped) + "}"
	default:
		return exprSource(d, e)
	}
	var b strings.Builder
	for _, p := range parts {
		if lit, ok := p.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String {
			b.WriteString(lit.Val.AsString())
			continue
		}
		b.WriteString("${" + exprSource(d, p) + "}")
	}
	return strings.TrimSpace(b.String())
}

// objectArgs are the arguments of the step attributes whose value is an
// object (kafka = { topic = ... }), by attribute: the decoder admits these
// and the reference documents each.
var objectArgs = map[string][]string{
	StepKafka:   {"topic", "key", "tail", "max", "timeout", "offsets"},
	StepFlink:   {"job", "show"},
	StepCompose: {"action", "service"},
	StepWait:    {"rerun", "until", "interval", "timeout", "for"},
	StepUsage:   {"services"},
	"compare":   {"declared", "column"},
}

func (d *decoder) objectAttrs(a *hcl.Attribute, what string, allowed ...string) map[string]*hcl.Attribute {
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		d.errorf(a.Expr.Range(), "Invalid "+what, "%s must be an object such as { %s = ... }.", a.Name, allowed[0])
		return nil
	}
	out := map[string]*hcl.Attribute{}
	for _, kv := range pairs {
		k := hcl.ExprAsKeyword(kv.Key)
		if k == "" {
			// A quoted key, as "for" must be written: a bare for starts a
			// for expression.
			if v, diags := kv.Key.Value(nil); !diags.HasErrors() && v.Type() == cty.String && !v.IsNull() {
				k = v.AsString()
			}
		}
		if prev, dup := out[k]; dup {
			d.errorf(kv.Key.Range(), "Duplicate argument", "%s already sets %s at %s.", a.Name, k, prev.NameRange)
			continue
		}
		if !contains(allowed, k) {
			d.errorf(kv.Key.Range(), "Unsupported argument", "%s takes %s; %q is not one of them.", a.Name, strings.Join(allowed, ", "), k)
			continue
		}
		out[k] = &hcl.Attribute{Name: k, Expr: kv.Value, Range: kv.Value.Range(), NameRange: kv.Key.Range()}
	}
	return out
}

func (d *decoder) decodeKafkaStep(a *hcl.Attribute) *KafkaStep {
	at := d.objectAttrs(a, "kafka step", objectArgs[StepKafka]...)
	if at == nil {
		return nil
	}
	k := &KafkaStep{Max: d.atLeast(at["max"], 1, 50), Timeout: d.duration(at["timeout"], "10s")}
	if at["topic"] == nil {
		d.errorf(a.Expr.Range(), "Missing topic", "A kafka step names its topic: kafka = { topic = \"...\" }.")
		return k
	}
	k.Topic = d.str(at["topic"])
	if oa := at["offsets"]; oa != nil {
		if v, ok := d.value(oa, cty.Bool, "true or false"); ok && !v.IsNull() {
			k.Offsets = v.True()
		}
		if k.Offsets && (at["key"] != nil || at["tail"] != nil || at["max"] != nil) {
			d.errorf(oa.Expr.Range(), "Offsets and messages", "A kafka step either probes the topic's offsets (offsets = true) or reads messages (key, tail, max), not both.")
		}
		if k.Offsets {
			d.topicRefs = append(d.topicRefs, topicRef{d.currentStep.exp, k.Topic, at["topic"].Expr.Range()})
			return k
		}
	}
	if ka := at["key"]; ka != nil {
		x := d.expr(ka, cty.String, false)
		k.Key = &x
	}
	if ta := at["tail"]; ta != nil && k.Key != nil {
		d.errorf(ta.NameRange, "Tail with a key", "A kafka step reads either the messages of one key (key, up to max) or the topic's last messages (tail), not both.")
	}
	k.Tail = d.atLeast(at["tail"], 1, 0)
	if k.Key == nil && k.Tail == 0 {
		k.Tail = 10
	}
	d.topicRefs = append(d.topicRefs, topicRef{d.currentStep.exp, k.Topic, at["topic"].Expr.Range()})
	return k
}

var flinkShows = []string{"state", "vertices", "checkpoints", "restarts", "exceptions"}

// flinkShowsMore are what a flink step shows only when asked: each costs a
// request per vertex.
var flinkShowsMore = []string{"backpressure"}

func (d *decoder) decodeFlinkStep(a *hcl.Attribute) *FlinkStep {
	at := d.objectAttrs(a, "flink step", objectArgs[StepFlink]...)
	if at == nil {
		return nil
	}
	f := &FlinkStep{Show: flinkShows}
	if ja := at["job"]; ja != nil {
		if name, ok := d.ref(ja.Expr, "job"); ok {
			if d.lab.Job(name) == nil {
				d.errorf(ja.Expr.Range(), "Reference to undeclared job", "No job named %q is declared in this lab.%s", name, d.jobHint(name))
			}
			f.Job = name
		}
	}
	if sa := at["show"]; sa != nil {
		f.Show = d.strList(sa)
		for _, s := range f.Show {
			if all := append(append([]string(nil), flinkShows...), flinkShowsMore...); !contains(all, s) {
				d.errorf(sa.Expr.Range(), "Unknown item", "show lists what to show: %s; %q is not one of them.", quoteList(all), s)
			}
		}
	}
	return f
}

func (d *decoder) decodeUsageStep(a *hcl.Attribute) *UsageStep {
	at := d.objectAttrs(a, "usage step", objectArgs[StepUsage]...)
	if at == nil {
		return nil
	}
	u := &UsageStep{}
	if sa := at["services"]; sa != nil {
		u.Services = d.strList(sa)
		for _, name := range u.Services {
			d.serviceRefs = append(d.serviceRefs, serviceRef{d.currentStep.exp, name, sa.Expr.Range()})
		}
	}
	return u
}

func (d *decoder) decodeComposeStep(a *hcl.Attribute) *ComposeStep {
	c := &ComposeStep{}
	if v, diags := a.Expr.Value(d.ctx); !diags.HasErrors() && v.Type() == cty.String && !v.IsNull() {
		// The short form: compose = "stop taskmanager".
		fields := strings.Fields(v.AsString())
		if len(fields) != 2 {
			d.errorf(a.Expr.Range(), "Invalid compose step", "Write compose = \"ACTION SERVICE\", as in \"stop taskmanager\", or { action = \"stop\", service = \"taskmanager\" }.")
			return c
		}
		c.Action, c.Service = fields[0], fields[1]
	} else {
		at := d.objectAttrs(a, "compose step", objectArgs[StepCompose]...)
		if at == nil {
			return c
		}
		c.Action, c.Service = d.str(at["action"]), d.str(at["service"])
	}
	if !contains([]string{"stop", "start", "restart", "pause", "unpause"}, c.Action) {
		d.errorf(a.Expr.Range(), "Invalid compose action", "A compose step stops, starts, restarts, pauses or unpauses a service; %q is none of these.", c.Action)
	}
	d.serviceRefs = append(d.serviceRefs, serviceRef{d.currentStep.exp, c.Service, a.Expr.Range()})
	return c
}

func (d *decoder) decodeWaitStep(a *hcl.Attribute, e *Experiment) *WaitStep {
	w := &WaitStep{}
	if v, diags := a.Expr.Value(d.ctx); !diags.HasErrors() && v.Type() == cty.String {
		w.Duration = d.duration(a, "")
		return w
	}
	at := d.objectAttrs(a, "wait step", objectArgs[StepWait]...)
	if at == nil {
		return w
	}
	if fa := at["for"]; fa != nil {
		w.Duration = d.duration(fa, "")
	}
	if ra := at["rerun"]; ra != nil {
		name, ok := d.ref(ra.Expr, "step")
		if ok {
			target := e.Step(name)
			switch {
			case target == nil:
				d.errorf(ra.Expr.Range(), "Reference to unknown step", "rerun names step %q, which is not an earlier step of experiment %s.%s", name, e.Name, didYouMean(name, stepNames(e.Steps)))
			case KindOf(target.Kind) == nil || !KindOf(target.Kind).Rerun:
				d.errorf(ra.Expr.Range(), "Step cannot be re-run", "Step %q is a %s step; a wait re-runs a step with a result (%s).", name, target.Kind, strings.Join(rerunKinds(), ", "))
			}
			w.Rerun = name
		}
		if at["until"] == nil && at["for"] == nil {
			d.errorf(a.Expr.Range(), "Missing condition", "A wait that re-runs a step needs until = <condition over result>, or \"for\" = \"30s\" to sample it for a while.")
		}
		w.Interval = d.duration(at["interval"], "5s")
		if at["for"] == nil {
			w.Timeout = d.duration(at["timeout"], "2m")
		} else if ta := at["timeout"]; ta != nil {
			d.errorf(ta.Expr.Range(), "Timeout of a sampling wait", "A wait that samples for a duration ends when the duration is over; timeout belongs to a wait with until.")
		}
	}
	if ua := at["until"]; ua != nil {
		if w.Rerun == "" {
			d.errorf(ua.Expr.Range(), "Condition without a step", "until is checked over the result of the step named by rerun = step.<name>.")
		}
		x := d.runExpr(ua, cty.Bool)
		w.Until = &x
		d.keepSyntax(w.Until, ua.Expr)
	}
	if w.Rerun == "" && w.Duration != "" { // without "for", the wait is reported above or below
		for _, name := range []string{"interval", "timeout"} {
			if xa := at[name]; xa != nil {
				d.errorf(xa.NameRange, "Wait without a step to re-run", "%s paces or bounds the re-runs of the step named by rerun = step.NAME; this wait re-runs nothing. For a plain pause write wait = \"30s\".", name)
			}
		}
	}
	if w.Duration == "" && w.Rerun == "" && at["until"] == nil { // a lone until is reported above
		d.errorf(a.Expr.Range(), "Wait for what", "Write wait = \"30s\", or { rerun = step.NAME, until = CONDITION, timeout = \"2m\" }.")
	}
	if w.Duration != "" && w.Rerun != "" && w.Until != nil {
		d.errorf(a.Expr.Range(), "Two kinds of wait", "A wait that re-runs a step either samples it for a duration (\"for\") or until a condition holds (until, timeout), not both.")
	}
	return w
}

// decodeCompare reads compare = { declared = producer.P.field.F |
// producer.P.follow.W.delay | producer.P.follow.W.field.F, column = "C" }.
// The declared distribution must be a continuous law (uniform, normal,
// lognormal, exponential), whose density a histogram can be set beside.
func (d *decoder) decodeCompare(a *hcl.Attribute) *CompareStep {
	at := d.objectAttrs(a, "compare", objectArgs["compare"]...)
	if at == nil {
		return nil
	}
	c := &CompareStep{}
	if at["column"] == nil || at["declared"] == nil {
		d.errorf(a.Expr.Range(), "Incomplete compare", "Write compare = { declared = producer.NAME.follow.NAME.delay (or producer.NAME.field.NAME), column = \"COLUMN\" }.")
		return nil
	}
	c.Column = d.str(at["column"])
	if c.Column == "" {
		d.errorf(at["column"].Expr.Range(), "Missing column", "column names the query's column whose values are compared.")
	}
	x := at["declared"].Expr
	bad := func() *CompareStep {
		d.errorf(x.Range(), "Invalid reference", "declared names a distribution of the producer: producer.NAME.field.FIELD, producer.NAME.follow.FOLLOW.delay or producer.NAME.follow.FOLLOW.field.FIELD.")
		return nil
	}
	trav, diags := hcl.AbsTraversalForExpr(x)
	if diags.HasErrors() || trav.RootName() != "producer" {
		return bad()
	}
	var names []string
	for _, t := range trav[1:] {
		ta, ok := t.(hcl.TraverseAttr)
		if !ok {
			return bad()
		}
		names = append(names, ta.Name)
	}
	c.Of = "producer." + strings.Join(names, ".")
	if len(names) < 3 {
		return bad()
	}
	var p *Producer
	for _, q := range d.lab.Producers {
		if q.Name == names[0] {
			p = q
		}
	}
	if p == nil {
		d.errorf(x.Range(), "Reference to undeclared producer", "No producer named %q is declared in this lab.%s", names[0], didYouMean(names[0], namesOf(d.lab.Producers, func(p *Producer) string { return p.Name })))
		return nil
	}
	field := func(fields []*Field, name, where string) *Dist {
		for _, f := range fields {
			if f.Name == name {
				return f.Dist
			}
		}
		d.errorf(x.Range(), "Reference to undeclared field", "%s has no field %q.%s", where, name, didYouMean(name, namesOf(fields, func(f *Field) string { return f.Name })))
		return nil
	}
	switch {
	case names[1] == "field" && len(names) == 3:
		c.Dist = field(p.Fields, names[2], "Producer "+p.Name)
	case names[1] == "follow" && (len(names) == 4 && names[3] == "delay" || len(names) == 5 && names[3] == "field"):
		var f *Follow
		for _, w := range p.Follows {
			if w.Name == names[2] {
				f = w
			}
		}
		if f == nil {
			d.errorf(x.Range(), "Reference to undeclared follow-up", "Producer %s has no follow %q.%s", p.Name, names[2], didYouMean(names[2], namesOf(p.Follows, func(f *Follow) string { return f.Name })))
			return nil
		}
		if names[3] == "delay" {
			c.Dist, c.Unit = f.Delay, "s"
		} else {
			c.Dist = field(f.Fields, names[4], "Follow-up "+f.Name+" of producer "+p.Name)
		}
	default:
		return bad()
	}
	if c.Dist == nil {
		return nil
	}
	if c.Dist.CDF() == nil {
		d.errorf(x.Range(), "Not a continuous distribution", "%s is %s; compare sets values beside a continuous law: uniform, normal, lognormal or exponential.", c.Of, c.Dist.Kind)
		return nil
	}
	c.Declared = c.Dist.String()
	return c
}

// Step is the experiment's step of that name, or nil: the one lookup of a
// step by name (the decoder, the runner and its resume use it).
func (e *Experiment) Step(name string) *Step {
	for _, s := range e.Steps {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Experiment is the lab's experiment of that name, or nil.
func (l *Lab) Experiment(name string) *Experiment {
	for _, e := range l.Experiments {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// ParseDuration is time.ParseDuration for the durations a lab declares
// (already checked at load time); "" is zero.
func ParseDuration(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

type topicRef struct {
	exp   *Experiment
	topic string
	rng   hcl.Range
}

type serviceRef struct {
	exp     *Experiment
	service string
	rng     hcl.Range
}
