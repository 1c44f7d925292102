package schemas

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Control is a negative control: a sabotage of the running lab made of
// actions every face can take (stop a service, cancel a streaming job)
// and undone afterwards (start it again, submit the job again). An
// expectation names the controls it must detect: `labgen run --controls`
// runs its experiment again under each, and an expectation that still
// holds there is blind.
type Control struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Text  string `json:"text,omitempty"`
	// Stop are compose services stopped while the control is on; undone
	// by starting them again, in reverse order.
	Stop []string `json:"stop,omitempty"`
	// Cancel are streaming jobs cancelled while the control is on; undone
	// by submitting them again.
	Cancel []string `json:"cancel,omitempty"`
	// Pause are services frozen while the control is on (SIGSTOP, or
	// docker compose pause): alive but making no progress, so a pipeline
	// falls behind instead of stopping. PauseFor, when set, thaws them
	// that long after the control was applied, while the experiment
	// still runs: the rows arrive, late.
	Pause    []string `json:"pause,omitempty"`
	PauseFor string   `json:"pause_for,omitempty"`
	// Mutant is a job run with other SQL or settings while the control
	// is on: a pipeline wrong in one way the lab names (a status that
	// never updates, one key in N lost, no restart strategy). A streaming
	// mutant replaces the running job of the same name and is undone by
	// submitting the job's own SQL again; a bounded one runs in the job's
	// place in every batch step, and undoing runs the job's own SQL once
	// more, so that its table holds the right result again.
	Mutant *Job `json:"mutant,omitempty"`
	// Latency delays one link of the pipeline while the control is on:
	// every byte from one service to another arrives that much later, so
	// the pipeline delivers, late, with no process frozen.
	Latency *Latency `json:"latency,omitempty"`
	// Settle is how long the experiments wait after the control is
	// applied: a mutant submitted afresh reads its source's backlog
	// first, and a change that is seen only while it happens (a window
	// updated in place) must happen after the experiment looks.
	Settle string `json:"settle,omitempty"`
	// Auto is set for a mutant derived with Flink's parser (labgen run
	// --mutants), not declared by the lab: its statement replaces the
	// job's INSERT in the job's own script.
	Auto      *AutoMutant `json:"auto,omitempty"`
	DeclRange hcl.Range   `json:"-"`
}

// Latency is a delay added to one link of the pipeline: the bytes From
// sends To (MySQL's binlog to Flink's CDC source) arrive Add later.
type Latency struct {
	From string `json:"from"`
	To   string `json:"to"`
	Add  string `json:"add"`
}

// LinkKind is a link a latency control can slow: what its bytes are.
type LinkKind struct {
	Name, From, To string
	// Carries says what flows from From to To, for messages and docs.
	Carries string
}

// Links are the links a latency control can slow, by name (FROM_TO):
// the native stack routes each through a proxy when some control names
// it.
var Links = []LinkKind{
	{LinkMySQLFlink, "mysql", "flink", "MySQL's binlog to Flink's CDC sources, and the bounded jobs' JDBC reads"},
	{LinkKafkaClickHouse, "kafka", "clickhouse", "the messages ClickHouse's Kafka engine tables fetch from Kafka"},
}

const (
	// LinkMySQLFlink is MySQL to Flink: the CDC sources' binlog reads
	// and the bounded jobs' JDBC reads.
	LinkMySQLFlink = "mysql_flink"
	// LinkKafkaClickHouse is Kafka to ClickHouse: the fetches of its
	// Kafka engine tables. Flink, the producer and labgen's own reads
	// reach Kafka directly.
	LinkKafkaClickHouse = "kafka_clickhouse"
)

// linkNamed is the link of that name, or nil.
func linkNamed(name string) *LinkKind {
	for i := range Links {
		if Links[i].Name == name {
			return &Links[i]
		}
	}
	return nil
}

// Link is the name of the link l slows ("mysql_flink").
func (l *Latency) Link() string { return l.From + "_" + l.To }

// LatencyLinks are the links the lab's controls slow, each once, sorted:
// those its stack routes through a proxy.
func (l *Lab) LatencyLinks() []string {
	var out []string
	for _, c := range l.Controls {
		if c.Latency != nil && !slices.Contains(out, c.Latency.Link()) {
			out = append(out, c.Latency.Link())
		}
	}
	sort.Strings(out)
	return out
}

// JobFile is where a job's script is rendered (the runner submits it
// from there).
func JobFile(job string) string { return "sql/flink/" + job + ".sql" }

// MutantFile is where a mutant control's job script is rendered, beside
// the jobs' (the runner submits it from there).
func (c *Control) MutantFile() string { return "sql/flink/controls/" + c.Name + ".sql" }

// The kinds of control, as records name them.
const (
	ControlKillSwitch = "kill switch" // services stopped, jobs cancelled
	ControlFault      = "fault"       // services paused, a link slowed: alive, late
	ControlMutant     = "mutant"      // a job run with wrong SQL
	// ControlAutoMutant is a mutant derived with Flink's parser (labgen
	// run --mutants): aimed at every measuring expectation, most of which
	// cannot see it, so a blind verdict under it is a survivor's trace,
	// not a defect of the expectation.
	ControlAutoMutant = "automatic mutant"
)

// Kind says in a word what the control does to the lab.
func (c *Control) Kind() string {
	switch {
	case c.Auto != nil:
		return ControlAutoMutant
	case c.Mutant != nil:
		return ControlMutant
	case len(c.Pause) > 0, c.Latency != nil:
		return ControlFault
	}
	return ControlKillSwitch
}

var controlSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "title", Required: true}, {Name: "text"}, {Name: "stop"}, {Name: "cancel"},
		{Name: "pause"}, {Name: "pause_for"}, {Name: "job"}, {Name: "query"}, {Name: "replace"}, {Name: "settings"}, {Name: "latency"}, {Name: "settle"}},
}

func (d *decoder) decodeControl(b *hcl.Block) *Control {
	name := b.Labels[0]
	if !d.checkName(name, b.LabelRanges[0], "control") {
		return nil
	}
	for _, c := range d.lab.Controls {
		if c.Name == name {
			d.errorf(b.LabelRanges[0], "Duplicate control", "A control named %q was already declared at %s.", name, c.DeclRange)
			return nil
		}
	}
	content, diags := b.Body.Content(controlSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	at := content.Attributes
	c := &Control{Name: name, Title: d.str(at["title"]), Text: trimText(d.str(at["text"])), DeclRange: b.DefRange}
	c.Stop = d.strList(at["stop"])
	c.Pause = d.strList(at["pause"])
	for _, n := range []string{"stop", "pause"} {
		if a := at[n]; a != nil {
			for _, s := range d.strList(a) {
				d.controlServices = append(d.controlServices, serviceRef{service: s, rng: a.Expr.Range()})
			}
		}
	}
	if a := at["pause_for"]; a != nil {
		c.PauseFor = d.duration(a, "")
		if len(c.Pause) == 0 {
			d.errorf(a.Expr.Range(), "pause_for without pause", "Control %s sets pause_for, but pauses no service (pause = [\"taskmanager\"]).", name)
		}
	}
	c.Latency = d.decodeLatency(c, at["latency"])
	c.Mutant = d.decodeMutant(c, at)
	c.Settle = d.duration(at["settle"], "")
	var ranges []hcl.Range
	c.Cancel, ranges = d.refList(at["cancel"], "job")
	for i, j := range c.Cancel {
		switch job := d.lab.Job(j); {
		case job == nil:
			d.errorf(ranges[i], "Reference to undeclared job", "No job named %q is declared in this lab.%s", j, d.jobHint(j))
		case job.Mode != ModeStreaming:
			d.errorf(ranges[i], "Not a streaming job", "Job %s is a %s job; a control cancels a streaming job and submits it again to undo.", j, job.Mode)
		}
	}
	acts := false
	for _, n := range []string{"stop", "cancel", "pause", "pause_for", "job", "query", "replace", "settings", "latency"} {
		acts = acts || at[n] != nil
	}
	if !acts {
		d.errorf(b.DefRange, "Control does nothing", "Control %s neither stops a service (stop = [\"taskmanager\"]), pauses one (pause = [\"taskmanager\"]), cancels a job (cancel = [job.NAME]), slows a link (latency = { from = \"mysql\", to = \"flink\", add = \"40s\" }) nor runs a mutant of a job (job = job.NAME with replace = { \"its text\" = \"the mutant's\" }, query = \"SELECT …\" or settings = { \"key\" = \"value\" }).", name)
	}
	return c
}

// decodeLatency reads latency = { from = "mysql", to = "flink", add =
// "40s" }: a link labgen knows how to slow, in a stack that runs both
// ends, and a positive delay.
func (d *decoder) decodeLatency(c *Control, a *hcl.Attribute) *Latency {
	if a == nil {
		return nil
	}
	v, ok := d.value(a, cty.Map(cty.String), "an object { from = \"mysql\", to = \"flink\", add = \"40s\" }")
	if !ok {
		return nil
	}
	m := v.AsValueMap()
	l := &Latency{}
	for k, x := range m {
		switch k {
		case "from":
			l.From = x.AsString()
		case "to":
			l.To = x.AsString()
		case "add":
			l.Add = x.AsString()
		default:
			d.errorf(a.Expr.Range(), "Unknown latency key", "Control %s's latency has %q; it takes from, to and add.", c.Name, k)
			return nil
		}
	}
	if linkNamed(l.Link()) == nil {
		var can []string
		for _, k := range Links {
			can = append(can, fmt.Sprintf("from = %q, to = %q (%s)", k.From, k.To, k.Carries))
		}
		d.errorf(a.Expr.Range(), "Unknown link", "Control %s slows the link from %q to %q, which labgen cannot slow; the links it can are %s.", c.Name, l.From, l.To, joinList(can, "and"))
		return nil
	}
	if dur, err := time.ParseDuration(l.Add); err != nil || dur <= 0 {
		d.errorf(a.Expr.Range(), "Invalid duration", "Control %s's latency add must be a positive duration such as \"40s\", not %q.", c.Name, l.Add)
		return nil
	}
	return l
}

// decodeMutant reads job = job.NAME with query = "SELECT …", replace =
// { … } or settings = { … }: the job run with the control's query, edits
// or settings in place of its own. The mutant reads and writes what the
// job does, so it is checked against the same tables, and rendered with
// the job's settings (the control's over them) and name (the
// experiments' flink steps find it by that name).
func (d *decoder) decodeMutant(c *Control, at hcl.Attributes) *Job {
	ja, qa, ra, sa := at["job"], at["query"], at["replace"], at["settings"]
	how := "query = \"SELECT …\", replace = { \"the job's text\" = \"the mutant's\" } or settings = { \"key\" = \"value\" }"
	switch {
	case ja == nil && qa == nil && ra == nil && sa == nil:
		return nil
	case ja == nil:
		a := qa
		for _, x := range []*hcl.Attribute{ra, sa} {
			if a == nil {
				a = x
			}
		}
		d.errorf(a.Expr.Range(), "Mutant without a job", "Control %s changes a job's SQL or settings but does not say which job (job = job.NAME).", c.Name)
		return nil
	case qa == nil && ra == nil && sa == nil:
		d.errorf(ja.Expr.Range(), "Job without a mutant", "Control %s names the job it replaces but not what to run in its place (%s).", c.Name, how)
		return nil
	case qa != nil && ra != nil:
		d.errorf(ra.Expr.Range(), "Query and replace", "Control %s gives both a whole query and edits of the job's; give one (%s).", c.Name, how)
		return nil
	}
	name, ok := d.ref(ja.Expr, "job")
	if !ok {
		return nil
	}
	job := d.lab.Job(name)
	if job == nil {
		d.errorf(ja.Expr.Range(), "Reference to undeclared job", "No job named %q is declared in this lab.%s", name, d.jobHint(name))
		return nil
	}
	m := *job
	m.Description = "The mutant of control " + c.Name + ", run in the job's place while the control is on: " + strings.TrimSuffix(c.Title, ".") + "."
	var src *hcl.Attribute
	switch {
	case qa != nil:
		src = qa
		m.Query = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.str(qa)), ";"))
		m.QueryFile = fileArg(qa.Expr)
	case ra != nil:
		src, m.QueryFile = ra, ""
		var ok bool
		if m.Query, ok = d.replaceInQuery(c, job, ra); !ok {
			return nil
		}
	}
	if sa != nil {
		m.Settings = mergeSettings(job.Settings, d.settings(sa))
	}
	if m.Query == job.Query && slices.Equal(m.Settings, job.Settings) {
		a := src
		if a == nil {
			a = sa
		}
		d.errorf(a.Expr.Range(), "Mutant equals its job", "The SQL and settings of control %s are job %s's own: the control would change nothing.", c.Name, name)
		return nil
	}
	if src != nil {
		ss := d.sqlSourceOf(src, m.Query)
		m.QuerySource = &SQLSource{ss}
		d.checkJobQuery(&m, ss, d.lab.Table(m.Writes))
	}
	return &m
}

// mergeSettings is base with over's keys set over it, sorted by key.
func mergeSettings(base, over []Setting) []Setting {
	byKey := map[string]string{}
	for _, s := range base {
		byKey[s.Key] = s.Value
	}
	for _, s := range over {
		byKey[s.Key] = s.Value
	}
	out := make([]Setting, 0, len(byKey))
	for k, v := range byKey {
		out = append(out, Setting{Key: k, Value: v})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out
}

// replaceInQuery applies replace = { "from" = "to", … } to the job's
// query: each "from" must stand in it exactly once, so that the mutant is
// the job changed in the places named, and an edit of the job that
// removes one is an error here rather than a mutant of an older job.
func (d *decoder) replaceInQuery(c *Control, job *Job, a *hcl.Attribute) (string, bool) {
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() || len(pairs) == 0 {
		d.errorf(a.Expr.Range(), "Invalid replace", "replace is a map from text of job %s's query to the text the mutant has there: { \"COALESCE(p.payment_status, 'PENDING')\" = \"'PENDING'\" }.", job.Name)
		return "", false
	}
	type edit struct {
		from, to string
		at       int
	}
	var edits []edit
	for _, p := range pairs {
		from, ok1 := d.exprString(p.Key)
		to, ok2 := d.exprString(p.Value)
		if !ok1 || !ok2 {
			continue
		}
		switch n := strings.Count(job.Query, from); {
		case from == "":
			d.errorf(p.Key.Range(), "Empty replace", "A replace key of control %s is empty: name the text of job %s's query to change.", c.Name, job.Name)
		case n == 0:
			d.errorf(p.Key.Range(), "Not in the job's query", "Control %s replaces %q, which job %s's query does not contain (was the job edited?).", c.Name, from, job.Name)
		case n > 1:
			d.errorf(p.Key.Range(), "Ambiguous replace", "Control %s replaces %q, which job %s's query contains %d times: name more of it, so that it stands once.", c.Name, from, job.Name, n)
		default:
			edits = append(edits, edit{from, to, strings.Index(job.Query, from)})
		}
	}
	if len(edits) != len(pairs) {
		return "", false
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].at < edits[j].at })
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		if e.at < pos {
			d.errorf(a.Expr.Range(), "Overlapping replace", "Two texts that control %s replaces overlap in job %s's query.", c.Name, job.Name)
			return "", false
		}
		b.WriteString(job.Query[pos:e.at])
		b.WriteString(e.to)
		pos = e.at + len(e.from)
	}
	b.WriteString(job.Query[pos:])
	return b.String(), true
}

// decodeExpectControl reads an expect's detects = [control.NAME, …] or
// sanity = "why no control applies": every expectation of a lab that
// declares controls says which.
func (d *decoder) decodeExpectControl(at hcl.Attributes, x *Expect) {
	var ranges []hcl.Range
	x.Detects, ranges = d.refList(at["detects"], "control")
	for i, n := range x.Detects {
		if d.lab.Control(n) == nil {
			d.errorf(ranges[i], "Reference to undeclared control", "No control named %q is declared in this lab.%s", n, didYouMean(n, namesOf(d.lab.Controls, func(c *Control) string { return c.Name })))
		}
	}
	x.Sanity = trimText(d.str(at["sanity"]))
	if len(x.Detects) > 0 && x.Sanity != "" {
		d.errorf(at["sanity"].Expr.Range(), "Detects and sanity", "An expectation either names the controls it must detect, or is a sanity check that says why none applies, not both.")
	}
}

// Control is the lab's control of that name, or nil.
func (l *Lab) Control(name string) *Control {
	for _, c := range l.Controls {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Controls are the controls the expectations of e must detect, each once,
// in the lab's order.
func (e *Experiment) Controls(l *Lab) []*Control {
	want := map[string]bool{}
	for _, s := range e.Steps {
		for _, x := range s.Expects {
			for _, n := range x.Detects {
				want[n] = true
			}
		}
	}
	var out []*Control
	for _, c := range l.Controls {
		if want[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// checkControls reports the services controls stop that the stack does
// not have, once the stack is known; and, in a lab that declares
// controls, each expectation that names none and is not a sanity check.
func (d *decoder) checkControls() {
	for _, r := range d.controlServices {
		if !contains(d.lab.Services(), r.service) {
			d.errorf(r.rng, "Unknown service", "This lab's compose stack has no service %q; its services are %s.%s", r.service, strings.Join(d.lab.Services(), ", "), didYouMean(r.service, d.lab.Services()))
		}
	}
	for _, c := range d.lab.Controls {
		if l := c.Latency; l != nil && d.lab.Stack != nil && (!d.lab.Stack.Has(l.From) || !d.lab.Stack.Has(l.To)) {
			d.errorf(c.DeclRange, "Link not in the stack", "Control %s slows the link from %s to %s, but this lab's stack does not run both.", c.Name, l.From, l.To)
		}
	}
	if len(d.lab.Controls) == 0 {
		return
	}
	names := namesOf(d.lab.Controls, func(c *Control) string { return c.Name })
	for _, e := range d.lab.Experiments {
		for _, s := range e.Steps {
			for _, x := range s.Expects {
				if len(x.Detects) == 0 && x.Sanity == "" {
					d.warnf(x.DeclRange, "Expectation without a control", "Nothing shows that %q can fail: name the controls it must detect (detects = [control.%s]), or say why it is a sanity check (sanity = \"…\").", x.Message, names[0])
				}
			}
		}
	}
}
