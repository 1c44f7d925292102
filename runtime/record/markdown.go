package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/labgen/labgen/schemas"
)

// DefaultMaxCell bounds a table cell in record.md when Limits.MaxCell is 0.
const DefaultMaxCell = 120

// DefaultMaxBytes is how much of a step's output a run keeps unless told
// otherwise, and what a page shows of a text of a record that declares
// no max_bytes.
const DefaultMaxBytes = 256 << 10

// KafkaMaxCell bounds a Kafka message's key or value in record.md. It is
// far above MaxCell: the field that changes between versions of a key is
// often late in the value, so a value is shown whole, and one cut at this
// bound says how much was left out.
const KafkaMaxCell = 4096

// Markdown renders the record as the runbook with its results filled in.
func Markdown(r *Record) []byte {
	var b bytes.Buffer
	w := &b
	title := r.Lab.Title
	if title == "" {
		title = r.Lab.Name
	}
	fmt.Fprintf(w, "# Lab record: %s\n\n", title)
	status := r.Status
	switch r.Status {
	case RunRunning:
		status = "in progress (or stopped before it could say so)"
	case RunInterrupted:
		status = "interrupted; `labgen run --resume` continues it"
	}
	fmt.Fprintf(w, "Lab `%s`, record `%s`: %s.\n\n", r.Lab.Name, r.ID, status)

	c := r.Count()
	fmt.Fprintf(w, "**%s**\n", c.Summary())
	if v := r.VerdictSummary(); v != "" {
		fmt.Fprintf(w, "\n**Controls: %s** (the controls table after the answers says which).\n", v)
	}
	writeAnswers(w, r)
	writeControls(w, r)
	fmt.Fprintf(w, "\n## What ran\n\n")
	var head [][]string
	head = append(head, []string{"Lab", fmt.Sprintf("%s (%s)", r.Lab.Name, r.Lab.Hash)})
	head = append(head, []string{"Started", stamp(r.Started)})
	if r.Ended != nil {
		head = append(head, []string{"Ended", fmt.Sprintf("%s (%s)", stamp(*r.Ended), Duration(r.Ended.Sub(r.Started).Milliseconds()))})
	}
	for _, row := range r.RunRows() {
		head = append(head, []string{row.Label, row.Value})
	}
	head = append(head, []string{"labgen", r.LabgenText()})
	head = append(head, []string{"Seed", fmt.Sprint(r.Seed)})
	var vars []string
	for _, v := range r.Variables {
		s := fmt.Sprintf("%s = %s", v.Name, compactJSON(v.Value))
		if v.Source != "" && v.Source != "default" {
			s += " (" + v.Source + ")"
		}
		vars = append(vars, s)
	}
	if len(vars) > 0 {
		head = append(head, []string{"Variables", strings.Join(vars, ", ")})
	}
	var imgs []string
	for _, i := range r.Images {
		imgs = append(imgs, fmt.Sprintf("%s `%s`", i.Component, i.Image))
	}
	if len(imgs) > 0 {
		label := "Images"
		if r.Stack != nil && r.Stack.Face == "native" {
			label = "Images (of the compose stack; not run here)"
		}
		head = append(head, []string{label, strings.Join(imgs, ", ")})
	}
	if r.Stack != nil {
		switch r.Stack.Face {
		case "native":
			head = append(head, []string{"Stack", "native: every service a local process, no Docker (labgen up --native)"})
		case "kubernetes":
			head = append(head, []string{"Stack", "kubernetes: the lab's kustomize base, Kafka through Strimzi, Flink through its operator (labgen up --kubernetes)"})
		default:
			head = append(head, []string{"Stack", r.Stack.Face})
		}
		for _, s := range r.Stack.StandIns {
			head = append(head, []string{"Stand-in", s})
		}
		for _, s := range r.Stack.Exits {
			head = append(head, []string{"Exited during the run", s})
		}
	}
	for _, p := range r.ProvenanceRows() {
		head = append(head, []string{p.Label, p.Value})
	}
	for _, j := range r.Jobs {
		v := j.How
		if j.ID != "" {
			v = fmt.Sprintf("`%s` (%s)", j.ID, j.How)
		}
		if j.Replaced != "" {
			v += fmt.Sprintf("; it replaced `%s`, whose script differed from the one rendered now", j.Replaced)
		}
		if j.Error != "" {
			v += ": " + oneLine(j.Error)
		}
		head = append(head, []string{"Flink job " + j.Name, v})
	}
	for _, e := range r.Endpoints {
		head = append(head, []string{e.Name, "`" + e.Address + "`"})
	}
	lim := r.Limits
	head = append(head, []string{"Limits", lim.Describe()})
	writeTable(w, []string{"", ""}, head, nil)
	fmt.Fprintln(w)
	// The head shows a job's error on one line; its cause is often further
	// down, so each error follows in full.
	for _, j := range r.Jobs {
		if j.Error != "" && strings.Contains(j.Error, "\n") {
			fmt.Fprintf(w, "Flink job `%s` (%s):\n\n```\n%s\n```\n\n", j.Name, j.How, strings.TrimRight(j.Error, "\n"))
		}
	}

	for _, e := range r.Experiments {
		writeExperiment(w, e, lim)
	}
	if pending := pendingExperiments(r); len(pending) > 0 {
		fmt.Fprintf(w, "\n---\n\nNot run yet: %s.\n", strings.Join(pending, ", "))
	}
	return b.Bytes()
}

func pendingExperiments(r *Record) []string {
	var out []string
	for _, n := range r.Selected {
		if r.Experiment(n) == nil {
			out = append(out, n)
		}
	}
	return out
}

func writeExperiment(w io.Writer, e *Experiment, lim Limits) {
	fmt.Fprintf(w, "\n## %02d %s\n\n", e.Number, e.Title)
	if e.Question != "" {
		fmt.Fprintf(w, "**Question.** %s\n\n", e.Question)
	}
	if e.Intro != "" {
		fmt.Fprintf(w, "%s\n\n", e.Intro)
	}
	if e.Status == ExpSkipped {
		fmt.Fprintf(w, "**Skipped:** %s\n", e.Skipped)
		return
	}
	// The same paragraph as the published page's, from the same measure.
	if rec := Recovery(e).Markdown(); rec != "" {
		fmt.Fprintf(w, "%s\n\n", rec)
	}
	for i, s := range e.Steps {
		writeStep(w, i+1, s, lim)
	}
	if n := e.Total - len(e.Steps); n > 0 {
		fmt.Fprintf(w, "\n*%d more step(s) not run yet: the run stopped here.*\n", n)
	}
	if len(e.Record) > 0 {
		fmt.Fprintf(w, "\n**To record:** %s.\n", strings.Join(e.Record, "; "))
	}
	if e.Expected != "" {
		fmt.Fprintf(w, "\n**Expected.** %s\n", e.Expected)
	}
	if e.Interpretation != "" {
		fmt.Fprintf(w, "\n**Interpretation.** %s\n", e.Interpretation)
	}
}

func writeStep(w io.Writer, n int, s *Step, lim Limits) {
	title := s.Title
	if title == "" {
		title = s.Name
	}
	fmt.Fprintf(w, "\n### %d. %s\n\n", n, title)
	if s.Kind == schemas.StepNote {
		fmt.Fprintf(w, "%s\n", s.Note)
		return
	}
	if s.Text != "" {
		fmt.Fprintf(w, "%s\n\n", s.Text)
	}
	line := fmt.Sprintf("Step `%s` (%s)", s.Name, s.Kind)
	if s.Ran != nil && s.Ran.Endpoint != "" {
		line += fmt.Sprintf(" on `%s`", s.Ran.Endpoint)
	}
	if !s.Started.IsZero() && s.Status != StatusSkipped {
		line += fmt.Sprintf(", started %s, took %s", stamp(s.Started), Duration(s.DurationMS))
	}
	if s.Attempts > 0 {
		line += fmt.Sprintf(", %d run(s)", s.Attempts)
	}
	fmt.Fprintf(w, "%s: **%s**.\n", line, statusWord(s.Status))
	if s.Skipped != "" {
		fmt.Fprintf(w, "\nSkipped: %s\n", s.Skipped)
	}
	if r := s.Ran; r != nil {
		if r.Detail != "" {
			fmt.Fprintf(w, "\n%s\n", r.Detail)
		}
		if r.SQL != "" {
			fmt.Fprintf(w, "\n```sql\n%s\n```\n", strings.TrimSpace(r.SQL))
		}
		if r.Command != "" {
			fmt.Fprintf(w, "\n```\n%s\n```\n", strings.TrimSpace(r.Command))
		}
	}
	if o := s.Output; o != nil {
		for _, t := range o.Tables {
			fmt.Fprintln(w)
			if t.Title != "" {
				fmt.Fprintf(w, "%s:\n\n", t.Title)
			}
			if len(t.Rows) == 0 {
				fmt.Fprintf(w, "(no rows; columns: %s)\n", strings.Join(t.Columns, ", "))
				continue
			}
			writeTable(w, t.Columns, t.Rows, CellLimits(s, t, lim))
		}
		if o.Text != "" {
			fmt.Fprintf(w, "\n```\n%s\n```\n", strings.TrimRight(o.Text, "\n"))
		}
		for _, note := range o.Notes {
			fmt.Fprintf(w, "\n*%s*\n", note)
		}
	}
	if len(s.Samples) > 0 {
		writeSamples(w, s, lim.CellMax())
	}
	if len(s.Captures) > 0 {
		fmt.Fprintln(w)
		for _, c := range s.Captures {
			if c.Error != "" {
				fmt.Fprintf(w, "- Captured `%s` = nothing: %s\n", c.Name, c.Error)
				continue
			}
			fmt.Fprintf(w, "- Captured `%s` = `%s`\n", c.Name, c.Display)
		}
	}
	if len(s.Expectations) > 0 {
		fmt.Fprintln(w)
		for _, x := range s.Expectations {
			switch {
			case x.Error != "":
				fmt.Fprintf(w, "- Expectation not evaluated: %s (`%s`: %s)\n", x.Message, x.Condition, x.Error)
			case x.Held:
				fmt.Fprintf(w, "- Expectation held: %s\n", x.Message)
			default:
				fmt.Fprintf(w, "- Expectation **not held**: %s (`%s`)\n", x.Message, x.Condition)
			}
		}
	}
	if s.Error != "" {
		fmt.Fprintf(w, "\nError:\n\n```\n%s\n```\n", strings.TrimRight(s.Error, "\n"))
	}
}

func statusWord(s string) string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusError:
		return "failed"
	case StatusTimedOut:
		return "timed out"
	case StatusSkipped:
		return "skipped"
	}
	return s
}

// CellLimit bounds the cells of one column: Max characters (0: no cut);
// Say makes a cut cell say how much it left out.
type CellLimit struct {
	Max int
	Say bool
}

// Cut is s cut at the limit, and whether it was: a cut s ends in "…" and,
// with Say, how many characters were left out. record.md and the
// published page cut with it.
func (l CellLimit) Cut(s string) (string, bool) {
	if l.Max <= 0 {
		return s, false
	}
	n := 0
	for i := range s {
		if n == l.Max {
			if l.Say {
				return s[:i] + fmt.Sprintf("… (%d more characters; record.json keeps the whole value)", utf8.RuneCountInString(s[i:])), true
			}
			return s[:i] + "…", true
		}
		n++
	}
	return s, false
}

// CellLimits bounds the cells of a step's table by column: the record's
// cell limit, but a Kafka message's key and value at KafkaMaxCell.
func CellLimits(s *Step, t Table, lim Limits) []CellLimit {
	limits := uniform(len(t.Columns), lim.CellMax())
	for i, c := range t.Columns {
		if s.Ran != nil && s.Ran.What == "kafka" && (c == "key" || c == "value") {
			limits[i] = CellLimit{Max: KafkaMaxCell, Say: true}
		}
	}
	return limits
}

// writeTable writes a Markdown table through tablewriter. Cells are made
// safe for one table row (| escaped, newlines shown as ⏎) and cut at their
// column's limit (none: no cut).
func writeTable(w io.Writer, header []string, rows [][]string, limits []CellLimit) {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	cell := func(s string, col int) string {
		switch {
		case col >= len(limits):
			return Cell(s, 0)
		case limits[col].Say:
			return saidCell(s, limits[col].Max)
		}
		return Cell(s, limits[col].Max)
	}
	hs := make([]any, len(header))
	for i, h := range header {
		hs[i] = cell(h, i)
	}
	t.Header(hs...)
	for _, r := range rows {
		cells := make([]string, len(header))
		for i := range cells {
			if i < len(r) {
				cells[i] = cell(r[i], i)
			}
		}
		_ = t.Append(cells)
	}
	_ = t.Render()
}

// saidCell is Cell for values a reader compares whole (a Kafka message's
// JSON): cut only past max, and then saying how much was left out.
func saidCell(s string, max int) string {
	s, _ = CellLimit{Max: max, Say: true}.Cut(s)
	return Cell(s, 0)
}

// Cell makes s fit one Markdown table cell.
func Cell(s string, max int) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	s = strings.ReplaceAll(s, "\t", " ")
	s, _ = CellLimit{Max: max}.Cut(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return s
}

// uniform is one limit for n columns.
func uniform(n, max int) []CellLimit {
	limits := make([]CellLimit, n)
	for i := range limits {
		limits[i] = CellLimit{Max: max}
	}
	return limits
}

// CellMax is the record's cell limit in characters: MaxCell, or
// DefaultMaxCell for a record that declares none.
func (l Limits) CellMax() int {
	if l.MaxCell > 0 {
		return l.MaxCell
	}
	return DefaultMaxCell
}

// Describe says the limits in words, as record.md's head and the page's
// state them.
func (l Limits) Describe() string {
	return fmt.Sprintf("query output: %d rows unless a step says otherwise, %s of rows; table cells cut at %d characters (Kafka message keys and values at %d); step timeout %s",
		l.MaxRows, bytesText(l.MaxBytes), l.CellMax(), KafkaMaxCell, l.StepTimeout)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// Duration shows milliseconds for a reader: 12 ms, 4.2 s, 3m05s.
func Duration(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	d := time.Duration(ms) * time.Millisecond
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func bytesText(n int) string {
	switch {
	case n <= 0:
		return "no byte limit"
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func compactJSON(b json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// DefaultSamples ends Step.Sampled when the step named nothing to sample
// and kept its kind's defaults.
const DefaultSamples = "the defaults of the step's kind"

// maxSampleRows bounds the samples table of record.md; the JSON keeps
// every sample.
const maxSampleRows = 40

// writeSamples writes a sampling step's samples as a table: one row per
// run, one column per series.
func writeSamples(w io.Writer, s *Step, maxCell int) {
	if strings.HasSuffix(s.Sampled, DefaultSamples) {
		// A wait … until that names nothing to sample: its runs are in
		// record.json; the output above is the last one.
		return
	}
	series := s.Series()
	fmt.Fprintf(w, "\nSampled %s: %d sample(s)", s.Sampled, len(s.Samples))
	if n := len(s.Samples); n > 1 {
		fmt.Fprintf(w, " over %s", Duration(s.Samples[n-1].MS-s.Samples[0].MS))
	}
	fmt.Fprintln(w, ".")
	if len(series) == 0 && !s.hasSampleErrors() {
		return
	}
	cols, rows := s.SampleTable()
	left := 0
	if len(rows) > maxSampleRows {
		left = len(rows) - maxSampleRows
		rows = append(rows[:maxSampleRows/2], rows[len(rows)-maxSampleRows/2:]...)
	}
	fmt.Fprintln(w)
	writeTable(w, cols, rows, uniform(len(cols), maxCell))
	if left > 0 {
		fmt.Fprintf(w, "\n*%d samples in the middle are left out here; record.json keeps every one.*\n", left)
	}
}
