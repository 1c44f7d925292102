// Package record is the lab record: what a run of a lab's experiments
// observed, kept as record.json (the data, read back by --resume, record
// show and record diff) and record.md (the same, as the runbook with its
// results filled in, ready to publish).
//
// Both files are rewritten atomically (a temporary file renamed over the
// old one) after every finished step, so a run killed at any point leaves
// every finished step on disk and a record that parses.
//
// Secrets never reach the files: endpoints are stored already masked, and
// Write replaces every secret value the Masker knows (passwords from .env,
// a DSN's password) with ****, in the JSON and in the Markdown.
package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/labgen/labgen/internal/atomicfile"
)

// Format is the version of record.json's layout.
const Format = 1

// Record statuses.
const (
	RunRunning     = "running"
	RunFinished    = "finished"
	RunInterrupted = "interrupted"
	// RunStopped marks a session found still "running" by a later
	// --resume: it was killed or crashed without a word.
	RunStopped = "stopped without a word (killed?)"
)

// Step statuses. Only StatusError counts as a failed step (exit code 3); a
// wait that timed out is an observation, and a skipped step says why.
const (
	StatusOK       = "ok"
	StatusError    = "error"
	StatusTimedOut = "timed_out"
	StatusSkipped  = "skipped"
)

// Experiment statuses.
const (
	ExpRunning = "running"
	ExpDone    = "done"
	ExpSkipped = "skipped"
)

// Record is one run of a lab (with its resumptions).
type Record struct {
	Format int    `json:"format"`
	ID     string `json:"id"`
	Status string `json:"status"`
	Lab    Lab    `json:"lab"`
	// Variables as lab.json resolved them.
	Variables []Variable `json:"variables"`
	Seed      int64      `json:"seed"`
	Labgen    string     `json:"labgen_version"`
	Images    []Image    `json:"images"`
	// Stack says how the services ran: compose (Docker) or native
	// (local processes), and what stood in for which engine.
	Stack *Stack `json:"stack,omitempty"`
	// Versions are what ran, each with how it was known: asked of the
	// engine, read from the jar on its class path, or pinned by
	// labgen.lock.
	Versions []Version `json:"versions,omitempty"`
	// JVMs are the stack's Java processes, each with its release and heap
	// (experiment texts about memory depend on the heap).
	JVMs []JVM `json:"jvms,omitempty"`
	// Settings are the engine settings the experiments' outcomes depend
	// on (checkpointing, restarts, slots), as the engine reported them.
	Settings  []Setting  `json:"settings,omitempty"`
	Jobs      []Job      `json:"jobs,omitempty"`
	Endpoints []Endpoint `json:"endpoints"`
	Limits    Limits     `json:"limits"`
	// Selected names the experiments this record runs, in order.
	Selected []string   `json:"selected"`
	Started  time.Time  `json:"started"`
	Ended    *time.Time `json:"ended,omitempty"`
	// Sessions are the runs that wrote this record: the first and each
	// --resume.
	Sessions    []Session     `json:"sessions"`
	Experiments []*Experiment `json:"experiments"`
	// Controls are the experiments run again under their negative
	// controls (labgen run --controls), and Verdicts say, per
	// expectation and control, whether it was shown able to fail.
	Controls []*ControlRun `json:"controls,omitempty"`
	Verdicts []Verdict     `json:"verdicts,omitempty"`
	// Unseen are the automatic mutants no experiment of the lab could
	// see (none reads what their job writes): survivors that ran against
	// nothing, kept so that the score counts them.
	Unseen []UnseenMutant `json:"unseen_mutants,omitempty"`
}

// Stack is the face of the lab that ran.
type Stack struct {
	// Face is "compose" (Docker), "native" (local processes) or
	// "kubernetes" (the lab's kustomize base on a cluster).
	Face string `json:"face"`
	// StandIns name each service that was not the engine the compose file
	// runs, and what it was instead.
	StandIns []string `json:"stand_ins,omitempty"`
	// Exits are the services that exited on their own while the run went
	// on (not on a step's or a control's request), and what the face did
	// about it: the native supervisor starts them again.
	Exits []string `json:"exits,omitempty"`
}

// Version is one part of the stack and its version as the run knew it.
type Version struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Source says how it was known: "SELECT VERSION()", "GET /overview",
	// "jar on its class path", "labgen.lock (sha256-checked)".
	Source string `json:"source"`
}

// Setting is an engine setting as the engine reported it.
type Setting struct {
	// Of is what the setting belongs to: "Flink cluster", "job order_wide".
	Of     string `json:"of"`
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Lab identifies the lab directory that ran.
type Lab struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Hash is sha256 of the lab's lab.json ("sha256:…").
	Hash string `json:"hash"`
	Dir  string `json:"dir,omitempty"`
}

// Variable is one lab variable's value (JSON) and where it came from.
type Variable struct {
	Name   string          `json:"name"`
	Value  json.RawMessage `json:"value"`
	Source string          `json:"source,omitempty"`
}

// Image is a component's container image.
type Image struct {
	Component string `json:"component"`
	Image     string `json:"image"`
}

// Job is a Flink job of the lab as this run found or submitted it.
type Job struct {
	Name string `json:"name"`
	Mode string `json:"mode"`
	ID   string `json:"id,omitempty"`
	// How: "running" (found running), "submitted" (by this run),
	// "resubmitted" (found running from a script that differs from the
	// one rendered now: cancelled and submitted again by this run),
	// "failed" (submission failed), "unavailable", "not submitted".
	How   string `json:"how"`
	Error string `json:"error,omitempty"`
	// Replaced is the ID of the job this one replaced because its script
	// had changed (How "resubmitted", or "running" when labgen up did it).
	Replaced string `json:"replaced,omitempty"`
}

// Endpoint is a service the run talked to, with secrets masked.
type Endpoint struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

// Limits bound what a record keeps of each output.
type Limits struct {
	// MaxRows is the default row limit of a query step (a step's max_rows
	// wins).
	MaxRows int `json:"max_rows"`
	// MaxBytes bounds a query's kept rows, measured as JSON.
	MaxBytes int `json:"max_bytes"`
	// MaxCell bounds one table cell in record.md, in characters.
	MaxCell int `json:"max_cell"`
	// QueryTimeout is the default timeout of a step.
	StepTimeout string `json:"step_timeout"`
}

// Session is one labgen run that wrote to the record.
type Session struct {
	Started time.Time  `json:"started"`
	Ended   *time.Time `json:"ended,omitempty"`
	Status  string     `json:"status"`
	// Command is the command line as typed (os.Args, shell-quoted);
	// records before 2026-12-07 hold one labgen made up ("labgen run DIR").
	Command string `json:"command,omitempty"`
	// Where says whether the session ran in CI (which, and its run's
	// address where the environment gives one) or on someone's machine.
	Where string `json:"where,omitempty"`
	// Host is the machine the session ran on.
	Host *Host `json:"host,omitempty"`
}

// Host is what a reader needs of the machine to weigh the run's figures:
// CPU shares and heaps mean little without the cores and memory behind
// them.
type Host struct {
	Cores int `json:"cores"`
	// MemoryBytes is the machine's memory (MemTotal).
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
	OS          string `json:"os,omitempty"`
	Kernel      string `json:"kernel,omitempty"`
	Arch        string `json:"arch"`
}

// JVM is one Java process of the stack: its Java release and heap, as
// the process itself or its command line said.
type JVM struct {
	// Service is the stack's service ("taskmanager").
	Service string `json:"service"`
	// Version is the Java release ("17.0.13"), or "not known: why".
	Version string `json:"version"`
	// Heap is the maximum heap ("512 MiB (-Xmx512m)"), or "" when not
	// known.
	Heap string `json:"heap,omitempty"`
	// Source says how both were known.
	Source string `json:"source"`
}

// Experiment is one experiment and its finished steps.
type Experiment struct {
	Name           string   `json:"name"`
	Number         int      `json:"number"`
	Title          string   `json:"title"`
	Question       string   `json:"question,omitempty"`
	Intro          string   `json:"intro,omitempty"`
	Record         []string `json:"record,omitempty"`
	Expected       string   `json:"expected,omitempty"`
	Interpretation string   `json:"interpretation,omitempty"`
	Status         string   `json:"status"`
	// Skipped says why the experiment did not run.
	Skipped string `json:"skipped,omitempty"`
	// Total is the number of steps the experiment has.
	Total int     `json:"total_steps"`
	Steps []*Step `json:"steps"`
	// Measures are the experiment's findings (its measure blocks),
	// computed from the healthy run's captures.
	Measures []Measure `json:"measures,omitempty"`
}

// Measure is one finding of an experiment: a number, or why there is
// none.
type Measure struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Unit  string `json:"unit,omitempty"`
	// Definition identifies what decides the value (the lab's
	// schemas.Measure.Definition, "sha256:…"): values are compared only
	// between records of one definition. Empty in a record written
	// before labgen kept it: not recorded.
	Definition string `json:"definition,omitempty"`
	// Expr is the value's expression as the lab writes it.
	Expr  string   `json:"expr"`
	Value *float64 `json:"value,omitempty"`
	// Error says why it was not measured.
	Error string `json:"error,omitempty"`
	// Samples is how many samples the value summarises, WindowS the
	// seconds they span and ResolutionS how finely they were taken, as
	// the lab's measure declares them; nil when it does not, or when
	// they could not be evaluated (Missing says why, by "samples",
	// "window" or "resolution").
	Samples     *int64            `json:"samples,omitempty"`
	WindowS     *float64          `json:"window_s,omitempty"`
	ResolutionS *float64          `json:"resolution_s,omitempty"`
	Missing     map[string]string `json:"missing,omitempty"`
}

// Text is the measure as shown: "4.10 s", with what it summarises when
// the lab says ("4.10 s (n = 1, resolution 1 s)"), or "not measured:
// why".
func (m Measure) Text() string {
	if m.Value == nil {
		return "not measured: " + m.Error
	}
	s := m.ValueText()
	if d := m.Details(); d != "" {
		s += " (" + d + ")"
	}
	return s
}

// ValueText is the value and its unit alone: "4.10 s".
func (m Measure) ValueText() string {
	if m.Value == nil {
		return ""
	}
	s := strconv.FormatFloat(*m.Value, 'f', -1, 64)
	if a := math.Abs(*m.Value); a >= 0.01 && a < 1e6 {
		s = strconv.FormatFloat(*m.Value, 'f', decimals(*m.Value), 64)
	}
	if m.Unit != "" {
		s += " " + m.Unit
	}
	return s
}

// Details say what the value summarises, as far as the lab declares it:
// "n = 212, over 30.2 s, resolution 1 ms"; "" when it declares nothing.
func (m Measure) Details() string {
	var parts []string
	switch {
	case m.Samples != nil:
		parts = append(parts, fmt.Sprintf("n = %d", *m.Samples))
	case m.Missing["samples"] != "":
		parts = append(parts, "n not known")
	}
	switch {
	case m.WindowS != nil:
		parts = append(parts, "over "+spanText(*m.WindowS))
	case m.Missing["window"] != "":
		parts = append(parts, "window not known")
	}
	switch {
	case m.ResolutionS != nil:
		parts = append(parts, "resolution "+spanText(*m.ResolutionS))
	case m.Missing["resolution"] != "":
		parts = append(parts, "resolution not known")
	}
	return strings.Join(parts, ", ")
}

// spanText shows seconds as a measure's window or resolution: "30 s",
// "30.2 s", "250 ms", "1 ms".
func spanText(s float64) string {
	unit := " s"
	if s > 0 && s < 1 {
		s, unit = s*1000, " ms"
	}
	if s >= 100 {
		return strconv.FormatFloat(s, 'f', 0, 64) + unit
	}
	return strconv.FormatFloat(s, 'g', 3, 64) + unit
}

// decimals keeps three significant digits of a number below 100 (4.13,
// 0.0413), none above.
func decimals(v float64) int {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return 0
	case a >= 10:
		return 1
	case a >= 1:
		return 2
	default:
		return 3
	}
}

// Step is one finished step.
type Step struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
	// Note is the text of a note step.
	Note         string        `json:"note,omitempty"`
	Ran          *Ran          `json:"ran,omitempty"`
	Started      time.Time     `json:"started"`
	DurationMS   int64         `json:"duration_ms"`
	Status       string        `json:"status"`
	Output       *Output       `json:"output,omitempty"`
	Captures     []Capture     `json:"captures,omitempty"`
	Expectations []Expectation `json:"expectations,omitempty"`
	// Error is the failure, verbatim from the service where there was one.
	Error string `json:"error,omitempty"`
	// Skipped says why the step did not run.
	Skipped string `json:"skipped,omitempty"`
	// Attempts counts the runs of a re-run step (wait … until).
	Attempts int `json:"attempts,omitempty"`
	// Counts are the numbers record diff compares (rows, messages, …).
	Counts map[string]int64 `json:"counts,omitempty"`
	// Sampled says what the samples are of ("step `during` every 1s for
	// 20s"); Samples are every run of a sampling step, in order.
	Sampled string   `json:"sampled,omitempty"`
	Samples []Sample `json:"samples,omitempty"`
	// Compare is a query step's values beside the distribution the
	// producer declares for them.
	Compare *Compare `json:"compare,omitempty"`
}

// Compare is generator input vs observed: the values of a query's column
// and the distribution the lab's producer declares for them, over the
// same bins.
type Compare struct {
	// Of is the declaration (producer.shop.follow.payment.delay) and
	// Declared the distribution in the lab's words.
	Of       string `json:"of"`
	Declared string `json:"declared"`
	Column   string `json:"column"`
	// Unit is "s" for delays.
	Unit   string    `json:"unit,omitempty"`
	Values []float64 `json:"values"`
	// Skipped counts rows whose value was NULL or not a number.
	Skipped int   `json:"skipped,omitempty"`
	Bins    []Bin `json:"bins"`
}

// Bin is one bin of a Compare: [Lo, Hi), how many values fell in it, and
// how many the declared distribution expects there of as many values (the
// first and last bins take the declared tails).
type Bin struct {
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Observed int     `json:"observed"`
	Declared float64 `json:"declared"`
}

// Sample is one run of a sampling step: when, and the values the step's
// sample expressions (or the defaults of its kind) gave.
type Sample struct {
	At time.Time `json:"at"`
	// MS is the time since the step started, in milliseconds.
	MS int64 `json:"ms"`
	// Values are JSON: numbers, strings (a job state), booleans, null, or
	// objects of those (one series per key, e.g. records out per vertex).
	Values map[string]json.RawMessage `json:"values,omitempty"`
	// Error is the run's failure; a failed run is kept, as a gap.
	Error string `json:"error,omitempty"`
}

// Ran says what a step did, as sent.
type Ran struct {
	// What: "mysql", "clickhouse", "kafka", "flink", "compose", "lab",
	// "wait".
	What     string `json:"what"`
	Endpoint string `json:"endpoint,omitempty"`
	// SQL is the statement as sent (secrets masked).
	SQL string `json:"sql,omitempty"`
	// Command is a command line or request, e.g. "docker compose … stop
	// taskmanager", "GET /jobs/{id}".
	Command string `json:"command,omitempty"`
	// Detail is a readable summary: "messages of key … in topic …".
	Detail string `json:"detail,omitempty"`
	// Action and Service are a service step's stop, start or restart and
	// the compose service it acted on, whatever the face's command was
	// (older records have only Command, "docker compose … stop SERVICE").
	Action  string `json:"action,omitempty"`
	Service string `json:"service,omitempty"`
}

// Output is a step's visible result: tables, text, or both.
type Output struct {
	Tables []Table `json:"tables,omitempty"`
	// Text is output that is not a table (command output).
	Text string `json:"text,omitempty"`
	// Notes say what was left out and why (the limits applied).
	Notes     []string `json:"notes,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
}

// Table is one table of an output.
type Table struct {
	// Title is shown above the table when set.
	Title   string     `json:"title,omitempty"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	// Nulls are the [row, column] cells that are SQL NULL (shown as NULL),
	// so that a string "NULL" or "" is told apart from them.
	Nulls [][2]int `json:"nulls,omitempty"`
}

// IsNull tells whether cell (row, col) is SQL NULL. Records written before
// Nulls existed show NULL as the text "NULL".
func (t Table) IsNull(row, col int) bool {
	for _, n := range t.Nulls {
		if n[0] == row && n[1] == col {
			return true
		}
	}
	return false
}

// Capture is a value captured from a step's result.
type Capture struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	// Value is the cty value with its type (ctyjson.SimpleJSONValue);
	// empty when the capture failed.
	Value json.RawMessage `json:"value,omitempty"`
	// Display is the value as the record shows it.
	Display string `json:"display,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Expectation is an expect block's outcome.
type Expectation struct {
	Message   string `json:"message"`
	Condition string `json:"condition"`
	Held      bool   `json:"held"`
	// Error is set when the condition could not be evaluated (then Held is
	// false).
	Error string `json:"error,omitempty"`
	// Parts are the condition's conjuncts (a && b && c), each evaluated
	// alone, with the values it compared: which part turned false under
	// a control, on what.
	Parts []Part `json:"parts,omitempty"`
}

// Part is one conjunct of a condition.
type Part struct {
	Expr string `json:"expr"`
	Held bool   `json:"held"`
	// Values are a comparison's two sides as evaluated ("3 == 0"), or
	// the part's value.
	Values string `json:"values,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Seen is the part and what it evaluated to, on one line.
func (p Part) Seen() string {
	switch {
	case p.Error != "":
		return p.Expr + ": " + oneLine(p.Error)
	case p.Values != "":
		return p.Expr + ": " + p.Values
	}
	return p.Expr
}

// Experiment returns the named experiment, or nil.
func (r *Record) Experiment(name string) *Experiment {
	for _, e := range r.Experiments {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Counts of a record's steps by status.
type Counts struct {
	Steps, OK, Errors, TimedOut, Skipped int
	Held, NotHeld                        int
	// JobErrors counts streaming jobs that could be neither found nor
	// submitted; they are not steps.
	JobErrors int
}

// Summary is the one-line account of a record, as the run prints it.
func (c Counts) Summary() string {
	s := fmt.Sprintf("%d steps: %d ok, %d failed, %d timed out, %d skipped; expectations %d held, %d not held",
		c.Steps, c.OK, c.Errors, c.TimedOut, c.Skipped, c.Held, c.NotHeld)
	if c.JobErrors > 0 {
		s += fmt.Sprintf("; %d streaming job(s) could not be submitted", c.JobErrors)
	}
	return s + "."
}

// Count sums up the record.
func (r *Record) Count() Counts {
	var c Counts
	for _, e := range r.Experiments {
		for _, s := range e.Steps {
			c.Steps++
			switch s.Status {
			case StatusOK:
				c.OK++
			case StatusError:
				c.Errors++
			case StatusTimedOut:
				c.TimedOut++
			case StatusSkipped:
				c.Skipped++
			}
			for _, x := range s.Expectations {
				if x.Held {
					c.Held++
				} else {
					c.NotHeld++
				}
			}
		}
	}
	for _, j := range r.Jobs {
		if j.How == "failed" {
			c.JobErrors++
		}
	}
	return c
}

// Failed tells whether any step (or job submission) ended in an error.
func (r *Record) Failed() bool { c := r.Count(); return c.Errors+c.JobErrors > 0 }

// Failure says why labgen run fails this record (exit 3), "" when it
// does not: a step or a job submission failed; with strict also an
// expectation that did not hold, one that held under a control that
// should break it (blind), or one that held and that no control showed
// able to fail. One rule for a single run and for each run of a set.
func (r *Record) Failure(strict bool) string {
	c := r.Count()
	if r.Failed() {
		return fmt.Sprintf("%d step(s) and %d job submission(s) failed; their errors are in the record", c.Errors, c.JobErrors)
	}
	if !strict {
		return ""
	}
	if c.NotHeld > 0 {
		return fmt.Sprintf("%d expectation(s) did not hold (--strict); the record says which", c.NotHeld)
	}
	if n := r.Blind(); n > 0 {
		return fmt.Sprintf("%d expectation(s) held under a control that should break them: blind (--strict); the record's controls table says which", n)
	}
	if un := r.Unshown(); len(un) > 0 {
		return fmt.Sprintf("%d expectation(s) not shown able to fail: under none of their controls was the condition false on a result that exists (--strict):\n  %s", len(un), strings.Join(un, "\n  "))
	}
	return ""
}

// Paths of a record's files in its directory.
const (
	JSONName     = "record.json"
	MarkdownName = "record.md"
)

// Write puts record.json and record.md into dir atomically, secrets
// masked.
func Write(dir string, r *Record, m *Masker) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := Marshal(r)
	if err != nil {
		return err
	}
	md := Markdown(r)
	if m != nil {
		j = m.MaskJSON(j)
		md = m.Mask(md)
	}
	if err := atomicfile.Write(filepath.Join(dir, JSONName), j, 0o644); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, MarkdownName), md, 0o644)
}

// Marshal encodes the record as indented JSON.
func Marshal(r *Record) ([]byte, error) { return indentJSON(r) }

// indentJSON is how a record's and a set's files are written: indented,
// and with <, > and & as they are (the files are read, not embedded).
func indentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Read reads a record from its record.json or its directory.
func Read(path string) (*Record, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, JSONName)
	}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("no lab record at %s: name a record directory (OUT/records/<id>) or its %s", path, JSONName)
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not a lab record: %w", path, err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%s is a lab record of format %d; this labgen reads format %d", path, r.Format, Format)
	}
	return &r, nil
}

// Dir is the directory of a record path (the directory itself or its
// record.json / record.md).
func Dir(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return path
	}
	return filepath.Dir(path)
}
