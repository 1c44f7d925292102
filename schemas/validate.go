package schemas

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// validate checks what needs the whole lab: the order of experiments,
// run-time references between steps, and which jobs and experiments the
// stack can run. Parts that need a component the stack leaves out are
// marked unavailable and reported as warnings, never silently dropped.
func (d *decoder) validate() {
	l := d.lab
	sort.SliceStable(l.Experiments, func(i, j int) bool { return l.Experiments[i].Number < l.Experiments[j].Number })
	for i := 1; i < len(l.Experiments); i++ {
		if a, b := l.Experiments[i-1], l.Experiments[i]; a.Number == b.Number {
			d.errorf(b.DeclRange, "Duplicate experiment number", "Experiments %s and %s both have number %d (the first at %s); numbers order the runbook.", a.Name, b.Name, b.Number, a.DeclRange)
		}
	}
	for _, ref := range d.deferred {
		d.checkDeferred(ref)
	}
	d.checkControls()
	// With errors, what the stack leaves out is still worked out (its
	// checks find unknown stores, topics and services), but not warned
	// about: those warnings would only repeat the errors.
	quiet := d.diags.HasErrors()

	for _, j := range l.Jobs {
		j.Unavailable = d.jobUnavailable(j)
	}
	// A mutant is its job run otherwise: unavailable where the job is,
	// and where what its own query reads is not there.
	for _, c := range l.Controls {
		if m := c.Mutant; m != nil {
			if j := l.Job(m.Name); j != nil && j.Unavailable != "" {
				m.Unavailable = j.Unavailable
			} else {
				m.Unavailable = d.jobUnavailable(m)
			}
		}
	}
	for _, j := range l.Jobs {
		if j.Unavailable != "" && !isInvalid(j.Unavailable) && !quiet {
			d.warnf(j.DeclRange, "Job unavailable in this stack", "Job %s %s; its SQL is not rendered and it is not submitted.", j.Name, j.Unavailable)
		}
	}
	for _, p := range l.Presets {
		for _, n := range p.Needs {
			if j := l.Job(n); j != nil && j.Unavailable != "" && p.Unavailable == "" {
				p.Unavailable = fmt.Sprintf("reads the output of job %s, which %s", n, j.Unavailable)
			}
		}
	}
	// Experiments in number order, so that one depending on the captures
	// of an unavailable experiment is unavailable too.
	for _, e := range l.Experiments {
		e.Unavailable = d.experimentUnavailable(e)
		if e.Unavailable != "" && !isInvalid(e.Unavailable) && !quiet {
			d.warnf(e.DeclRange, "Experiment unavailable in this stack", "Experiment %d (%s) %s; the runbook and runs mark it unavailable.", e.Number, e.Name, e.Unavailable)
		}
	}
}

// sampling tells whether the step of ref keeps samples.
func sampling(ref deferredRef) bool {
	if ref.exp == nil || ref.step >= len(ref.exp.Steps) {
		return false
	}
	s := ref.exp.Steps[ref.step]
	return len(s.Samples) > 0 || s.Wait != nil && s.Wait.Rerun != ""
}

func (d *decoder) checkDeferred(ref deferredRef) {
	d.checkCalls(ref.expr, false)
	for _, tr := range ref.expr.Variables() {
		rng := tr.SourceRange()
		name := func(i int) string {
			if i >= len(tr) {
				return ""
			}
			if a, ok := tr[i].(hcl.TraverseAttr); ok {
				return a.Name
			}
			return ""
		}
		switch tr.RootName() {
		case "result":
			if !ref.allowResult {
				d.errorf(rng, "result is not available here", "result is the outcome of the step itself and can be used in capture, expect and wait's until; here, use a value an earlier step captured (step.NAME.VALUE).")
			}
		case "samples":
			if !ref.allowResult || !sampling(ref) {
				d.errorf(rng, "samples is not available here", "samples are the runs of a sampling step (a wait that re-runs a step, or a step with sample = { … }), seen by its own capture and expect.")
			}
		case "var":
			vars := d.ctx.Variables["var"].Type().AttributeTypes()
			if _, ok := vars[name(1)]; !ok {
				d.errorf(rng, "Reference to undeclared variable", "No variable named %q is declared in this lab.%s", name(1), didYouMean(name(1), slices.Sorted(maps.Keys(vars))))
			}
		case "step":
			d.checkCapture(rng, ref.exp, ref.exp.Steps[:min(ref.step, len(ref.exp.Steps))], name(1), name(2), "step."+name(1))
		case "experiment":
			src := d.lab.Experiment(name(1))
			switch {
			case src == nil:
				var names []string
				for _, x := range d.lab.Experiments {
					names = append(names, x.Name)
				}
				d.errorf(rng, "Reference to unknown experiment", "No experiment named %q is declared in this lab.%s", name(1), didYouMean(name(1), names))
			case src.Number >= ref.exp.Number:
				d.errorf(rng, "Reference to a later experiment", "Experiment %s (number %d) runs after %s (number %d), so its captures are not known yet.", src.Name, src.Number, ref.exp.Name, ref.exp.Number)
			default:
				d.checkCapture(rng, src, src.Steps, name(2), name(3), "experiment."+src.Name+"."+name(2))
				d.dependsOn[ref.exp] = append(d.dependsOn[ref.exp], src)
			}
		default:
			d.errorf(rng, "Unknown name in a run-time expression", "%q is not known here; a step can use var.NAME, step.STEP.CAPTURE, experiment.EXPERIMENT.STEP.CAPTURE and, in capture, expect and until, result.", tr.RootName())
		}
	}
}

func (d *decoder) checkCapture(rng hcl.Range, e *Experiment, earlier []*Step, stepName, capture, prefix string) {
	if stepName == "" {
		d.errorf(rng, "Incomplete reference", "Name a step and one of its captures, as in step.pick.order_id.")
		return
	}
	for _, s := range earlier {
		if s.Name != stepName {
			continue
		}
		var names []string
		for _, c := range s.Captures {
			if c.Name == capture {
				return
			}
			names = append(names, c.Name)
		}
		if capture == "" {
			d.errorf(rng, "Incomplete reference", "Name the captured value: %s.<capture>.", prefix)
			return
		}
		if len(names) == 0 {
			d.errorf(rng, "Value not captured", "Step %s of experiment %s captures nothing, so %s.%s has no value; add capture = { %s = ... } to that step.", stepName, e.Name, prefix, capture, capture)
		} else {
			d.errorf(rng, "Value not captured", "Step %s of experiment %s captures %s, not %q.", stepName, e.Name, strings.Join(names, ", "), capture)
		}
		return
	}
	// earlier is a prefix of e.Steps: the step right after it is the one
	// that refers.
	for i := len(earlier); i < len(e.Steps); i++ {
		switch {
		case e.Steps[i].Name != stepName:
			continue
		case i == len(earlier):
			d.errorf(rng, "Reference to the step itself", "Step %s cannot read its own captures through %s: in its capture, expect and until, use result.", stepName, prefix)
		default:
			d.errorf(rng, "Reference to a later step", "Step %s of experiment %s runs after this one: steps run in order, and a step can use only what steps before it captured.", stepName, e.Name)
		}
		return
	}
	d.errorf(rng, "Reference to unknown step", "%s is not an earlier step of experiment %s; a step can use only what steps before it captured.%s", stepName, e.Name, didYouMean(stepName, stepNames(earlier)))
}

// invalid is the reason given for a job or experiment whose error was
// just reported; it is not also warned about as unavailable.
const invalid = "is invalid"

func isInvalid(reason string) bool { return strings.HasSuffix(reason, invalid) }

func (d *decoder) missing(component string) string {
	return fmt.Sprintf("needs %s, which the stack does not run", component)
}

func (d *decoder) jobUnavailable(j *Job) string {
	if d.lab.Stack.Flink == nil {
		return d.missing("flink")
	}
	for _, use := range j.Uses {
		kind, table := use.Kind, use.Table
		if kind == UseMissing {
			return fmt.Sprintf("reads %s from MySQL or Kafka, which the stack does not run", table)
		}
		t := d.lab.Table(table)
		if t != nil && t.Store(kind) == nil {
			if d.droppedStores[table+":"+kind] {
				return d.missing(kind)
			}
			d.errorf(j.DeclRange, "Store not declared", "The query of job %s reads %s from %s, but table %s declares no %s store.", j.Name, table, kind, table, kind)
			return invalid
		}
	}
	if t := d.lab.Table(j.Writes); t != nil && len(FlinkSinks(t)) == 0 {
		return fmt.Sprintf("writes %s, none of whose stores the stack runs", t.Name)
	}
	return ""
}

func (d *decoder) experimentUnavailable(e *Experiment) string {
	l := d.lab
	for _, src := range d.dependsOn[e] {
		if isInvalid(src.Unavailable) {
			return invalid
		}
		if src.Unavailable != "" {
			return fmt.Sprintf("uses values captured by experiment %d (%s), which is unavailable", src.Number, src.Name)
		}
	}
	for _, n := range e.Needs {
		if j := l.Job(n); j != nil && j.Unavailable != "" {
			return fmt.Sprintf("needs job %s, which %s", n, j.Unavailable)
		}
	}
	for _, r := range d.topicRefs {
		if r.exp != e {
			continue
		}
		found, dropped := false, false
		var topics []string
		for _, t := range l.Tables {
			if s := t.Store(StoreKafka); s != nil {
				found = found || s.Name == r.topic
				topics = append(topics, s.Name)
			}
		}
		if !found && l.Stack.Kafka == nil {
			dropped = true
		}
		switch {
		case dropped:
			return d.missing("kafka")
		case !found:
			d.errorf(r.rng, "Unknown topic", "No table of this lab has a kafka store with topic %q.%s", r.topic, didYouMean(r.topic, topics))
			return invalid
		}
	}
	for _, r := range d.serviceRefs {
		if r.exp != e {
			continue
		}
		if contains(l.Services(), r.service) {
			continue
		}
		if c := ServiceComponent(r.service); c != "" && !l.Stack.Has(c) {
			return d.missing(c)
		}
		d.errorf(r.rng, "Unknown service", "This lab's compose stack has no service %q; its services are %s.%s", r.service, strings.Join(l.Services(), ", "), didYouMean(r.service, l.Services()))
		return invalid
	}
	for _, s := range e.Steps {
		if k := KindOf(s.Kind); k != nil && k.unavailable != nil {
			if why := k.unavailable(d, s); why != "" {
				return why
			}
		}
	}
	return ""
}
