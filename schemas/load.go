// Package schemas is the lab language: the HCL body schemas, the Go model of
// a lab (every element keeps its declaration range), decoding, validation of
// references between blocks, and the logical column types with their
// mapping to each engine's dialect.
package schemas

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Options are the inputs of a load besides the lab's own files.
type Options struct {
	// Vars are -var and -var-file arguments in command-line order; later
	// ones win, as in Terraform.
	Vars []VarArg
	// Environ is searched for LABGEN_VAR_<name>; nil means none.
	Environ []string
	// Lint adds warnings for expectations that cannot fail (lint.go).
	// They are meant for labgen validate; render and run leave them out,
	// as they say nothing about whether the lab renders or runs.
	Lint bool
}

// VarArg is one -var name=value or -var-file path argument.
type VarArg struct {
	// Name and Value for -var.
	Name, Value string
	// File for -var-file.
	File string
}

// Parser keeps every source file it has read, so that diagnostics can be
// printed with snippets.
type Parser struct {
	p *hclparse.Parser
	// ctx is the context of the load under way: file() and for
	// expressions stop when it ends.
	ctx context.Context
	// What the load has read with file() and gone through in for
	// expressions, against MaxReadFileTotal and MaxForElements.
	fileBytes, forElements int
}

// NewParser returns an empty parser.
func NewParser() *Parser { return &Parser{p: hclparse.NewParser()} }

// Files are the sources read so far, for hcl's diagnostic writer.
func (p *Parser) Files() map[string]*hcl.File { return p.p.Files() }

// rootSchema is the top level of every .hcl file of a lab.
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "lab", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "stack"},
		{Type: "table", LabelNames: []string{"name"}},
		{Type: "producer", LabelNames: []string{"name"}},
		{Type: "job", LabelNames: []string{"name"}},
		{Type: "preset", LabelNames: []string{"name"}},
		{Type: "experiment", LabelNames: []string{"name"}},
		{Type: "control", LabelNames: []string{"name"}},
	},
}

// Load reads every .hcl file in dir (not below it), decodes and validates
// the lab. It returns a lab whenever decoding got far enough, even with
// errors, so that callers can show as much as possible; callers must check
// diags.HasErrors before using it.
func (p *Parser) Load(dir string, opts Options) (*Lab, hcl.Diagnostics) {
	return p.LoadContext(context.Background(), dir, opts)
}

// LoadContext is Load that stops, with an "Interrupted" error, soon
// after ctx ends: between files and blocks, and in file() and for
// expressions, which are where a load spends its time.
func (p *Parser) LoadContext(ctx context.Context, dir string, opts Options) (*Lab, hcl.Diagnostics) {
	p.ctx, p.fileBytes, p.forElements = ctx, 0, 0
	var diags hcl.Diagnostics
	names, err := labFiles(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read the lab directory",
			Detail:   err.Error(),
		}}
	}
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No lab files",
			Detail:   fmt.Sprintf("The directory %s has no .hcl files; a lab is a directory of .hcl files.%s", dir, renderedHint(dir)),
		}}
	}
	blocks := map[string][]*hcl.Block{}
	total := 0
	for _, name := range names {
		if ctx.Err() != nil {
			return nil, append(diags, interrupted(nil))
		}
		f, d := p.parseFile(name, "Cannot read file")
		diags = append(diags, d...)
		if f != nil {
			if total += len(f.Bytes); total > MaxLabBytes {
				return nil, append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError, Summary: "Lab too large",
					Detail:  fmt.Sprintf("The .hcl files of %s hold more than %s together, the most labgen reads of one lab; read large SQL and data with file().", dir, mib(MaxLabBytes)),
					Subject: fileStart(name),
				})
			}
		}
		if f == nil {
			continue
		}
		content, d := f.Body.Content(rootSchema)
		diags = append(diags, d...)
		for _, b := range content.Blocks {
			blocks[b.Type] = append(blocks[b.Type], b)
		}
	}
	if diags.HasErrors() {
		// Syntax errors make every later message doubtful; stop here.
		return nil, diags
	}
	lab, diags := decodeLab(dir, blocks, opts, p)
	return lab, onceEach(diags)
}

// onceEach keeps the first of the errors of the load-wide for
// expression limit and of an interrupt, and drops the rest: once the
// count is over, every for expression evaluated after it fails too (and
// HCL goes on evaluating the ones around it to gather their errors), so
// the others would blame expressions that are not at fault.
func onceEach(diags hcl.Diagnostics) hcl.Diagnostics {
	seen := map[string]bool{}
	out := diags[:0]
	for _, d := range diags {
		if strings.Contains(d.Detail, errStopped.Error()) {
			continue
		}
		if d.Summary == forLimitSummary || d.Summary == interruptedSummary {
			if seen[d.Summary] {
				continue
			}
			seen[d.Summary] = true
		}
		out = append(out, d)
	}
	return out
}

// parseFile reads and parses an .hcl file within the limits (limits.go),
// and bounds its for expressions.
// cannot is the summary of a failure to read it.
func (p *Parser) parseFile(name, cannot string) (*hcl.File, hcl.Diagnostics) {
	if f := p.p.Files()[name]; f != nil {
		return f, nil // parsed (and bounded) already
	}
	src, diags := readHCL(name, cannot)
	if diags.HasErrors() {
		return nil, diags
	}
	f, diags := ParseHCL(p.p, src, name)
	if f != nil {
		if body, ok := f.Body.(*hclsyntax.Body); ok {
			boundFors(body, p)
		}
	}
	return f, diags
}

// labFiles lists dir's .hcl files in a stable order.
func labFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".hcl") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// LabFiles lists the .hcl files a lab is made of (for fmt).
func LabFiles(dir string) ([]string, error) { return labFiles(dir) }

// decoder accumulates diagnostics while turning blocks into the model.
type decoder struct {
	dir   string
	ctx   *hcl.EvalContext
	diags hcl.Diagnostics
	lab   *Lab
	// Where each named element was declared, for duplicate messages.
	tables, jobs, presets, experiments, producers map[string]hcl.Range
	// storeOwners are the tables by where their stores keep their rows
	// ("kafka .orders"): two tables in one place is an error.
	storeOwners map[string]storeOwner
	// stackBroken tells that the stack block had errors (its services may
	// be missing from the lab's list).
	stackBroken bool
	// currentParent is the table of the producer being decoded.
	currentParent string
	// rowAbove are the fields declared above the one being decoded, in
	// a producer's or a follow-up's field blocks (field() reads them);
	// nil in an update.
	rowAbove []*Field
	rowTable *Table
	// droppedStores are table:kind pairs declared on a component the
	// stack does not run.
	droppedStores map[string]bool
	parser        *Parser
	// Collected while decoding experiments, checked by validate.
	currentStep *deferredRef
	deferred    []deferredRef
	topicRefs   []topicRef
	serviceRefs []serviceRef
	// controlServices are the services controls stop, checked once the
	// stack is known.
	controlServices []serviceRef
	dependsOn       map[*Experiment][]*Experiment
	// syntax are the syntax trees of expect conditions and wait
	// conditions, which the lints compare (the model keeps only text).
	syntax map[*Expr]hcl.Expression
	// declarations are the diagnostics reported while decoding the lab,
	// variable, stack and table blocks (rankDeclaration).
	declarations map[*hcl.Diagnostic]bool
}

// stopped tells whether the load's context has ended (an interrupt).
func (d *decoder) stopped() bool {
	return d.parser != nil && d.parser.ctx != nil && d.parser.ctx.Err() != nil
}

func (d *decoder) errorf(subject hcl.Range, summary, detail string, args ...any) {
	s := subject
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: &s,
	})
}

func (d *decoder) warnf(subject hcl.Range, summary, detail string, args ...any) {
	s := subject
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: &s,
	})
}

func decodeLab(dir string, blocks map[string][]*hcl.Block, opts Options, p *Parser) (*Lab, hcl.Diagnostics) {
	d := &decoder{
		dir:           dir,
		lab:           &Lab{Dir: dir},
		tables:        map[string]hcl.Range{},
		jobs:          map[string]hcl.Range{},
		presets:       map[string]hcl.Range{},
		experiments:   map[string]hcl.Range{},
		producers:     map[string]hcl.Range{},
		droppedStores: map[string]bool{},
		parser:        p,
		dependsOn:     map[*Experiment][]*Experiment{},
	}

	vars := d.decodeVariables(blocks["variable"], opts, p)
	d.ctx = &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(vars)},
		Functions: p.stopCalls(Functions(fileReader(dir, p))),
	}
	if d.diags.HasErrors() {
		return d.lab, d.diags
	}

	switch labs := blocks["lab"]; len(labs) {
	case 0:
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Missing lab block",
			Detail: fmt.Sprintf("Every lab declares itself once: lab \"name\" { title = \"...\" } in one of the .hcl files of %s.", dir),
		})
	default:
		for _, extra := range labs[1:] {
			d.errorf(extra.DefRange, "Duplicate lab block", "The lab was already declared at %s; a lab has one lab block.", labs[0].DefRange)
		}
		d.decodeLabBlock(labs[0])
	}

	switch stacks := blocks["stack"]; len(stacks) {
	case 0:
		diag := &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Missing stack block",
			Detail: fmt.Sprintf("A lab declares the components it runs in one stack block, in any .hcl file of %s, such as stack { mysql {} kafka {} flink {} clickhouse {} }.", dir),
		}
		if labs := blocks["lab"]; len(labs) > 0 {
			diag.Subject = labs[0].DefRange.Ptr() // the lab it is missing from
		}
		d.diags = append(d.diags, diag)
		d.lab.Stack = &Stack{}
	default:
		for _, extra := range stacks[1:] {
			d.errorf(extra.DefRange, "Duplicate stack block", "The stack was already declared at %s; a lab has one stack block.", stacks[0].DefRange)
		}
		before := errorCount(d.diags)
		d.lab.Stack = d.decodeStack(stacks[0])
		d.stackBroken = errorCount(d.diags) > before
	}

	for _, b := range blocks["table"] {
		if d.stopped() {
			break
		}
		if t := d.decodeTable(b); t != nil {
			d.lab.Tables = append(d.lab.Tables, t)
		}
	}
	// What the lab, its variables, stack and tables reported so far is
	// about the declarations the remaining blocks refer to (sortDiags).
	d.declarations = map[*hcl.Diagnostic]bool{}
	for _, x := range d.diags {
		d.declarations[x] = true
	}
	for _, b := range blocks["job"] {
		if d.stopped() {
			break
		}
		if j := d.decodeJob(b); j != nil {
			d.lab.Jobs = append(d.lab.Jobs, j)
		}
	}
	for _, b := range blocks["preset"] {
		if d.stopped() {
			break
		}
		if pr := d.decodePreset(b); pr != nil {
			d.lab.Presets = append(d.lab.Presets, pr)
		}
	}
	for _, b := range blocks["producer"] {
		if d.stopped() {
			break
		}
		if pr := d.decodeProducer(b); pr != nil {
			d.lab.Producers = append(d.lab.Producers, pr)
		}
	}
	// Controls before experiments: their expectations name them.
	for _, b := range blocks["control"] {
		if d.stopped() {
			break
		}
		if c := d.decodeControl(b); c != nil {
			d.lab.Controls = append(d.lab.Controls, c)
		}
	}
	for _, b := range blocks["experiment"] {
		if d.stopped() {
			break
		}
		if e := d.decodeExperiment(b); e != nil {
			d.lab.Experiments = append(d.lab.Experiments, e)
		}
	}
	if d.stopped() {
		return nil, append(d.diags, interrupted(nil))
	}
	// Reference checks run even after decoding errors, so that a lab's
	// independent mistakes are reported in one round.
	d.validate()
	d.dropKnockOns()
	d.lab.setDefinitions()
	// Lints on a lab with errors would only add noise to the errors.
	if opts.Lint && !d.diags.HasErrors() {
		d.lint()
	}
	d.diags = sortDiags(d.diags, d.rank)
	return d.lab, d.diags
}

var labSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "title", Required: true},
		{Name: "description"},
		{Name: "seed"},
	},
}

func (d *decoder) decodeLabBlock(b *hcl.Block) {
	content, diags := b.Body.Content(labSchema)
	d.diags = append(d.diags, diags...)
	d.lab.Name = b.Labels[0]
	d.lab.DeclRange = b.DefRange
	d.checkName(b.Labels[0], b.LabelRanges[0], "lab")
	d.lab.Title = d.str(content.Attributes["title"])
	d.lab.Description = trimText(d.str(content.Attributes["description"]))
	d.lab.Seed = 1
	if a := content.Attributes["seed"]; a != nil {
		d.lab.Seed = int64(d.integer(a))
	}
}

// dropKnockOns removes the errors that only repeat an earlier one: a
// reference to a table, producer, job or preset whose block had errors
// (it was declared, so the reference is not what is wrong), and unknown
// services while a producer or the stack had errors (their services are
// then missing from the list). One typo gives one error.
func (d *decoder) dropKnockOns() {
	broken := map[string]bool{} // "producer \"name\""
	mark := func(kind string, declared map[string]hcl.Range, has func(string) bool) {
		for name := range declared {
			if !has(name) {
				broken[fmt.Sprintf("%s named %q", kind, name)] = true
			}
		}
	}
	mark("table", d.tables, func(n string) bool { return d.lab.Table(n) != nil })
	mark("producer", d.producers, func(n string) bool {
		return slices.ContainsFunc(d.lab.Producers, func(p *Producer) bool { return p.Name == n })
	})
	mark("job", d.jobs, func(n string) bool { return d.lab.Job(n) != nil })
	mark("preset", d.presets, func(n string) bool { return d.lab.Preset(n) != nil })
	servicesBroken := d.lab.Stack == nil || d.stackBroken
	for k := range broken {
		servicesBroken = servicesBroken || strings.HasPrefix(k, "producer ")
	}
	if len(broken) == 0 && !servicesBroken {
		return
	}
	kept := d.diags[:0]
	for _, x := range d.diags {
		drop := false
		if strings.HasPrefix(x.Summary, "Reference to undeclared ") {
			for k := range broken {
				drop = drop || strings.Contains(x.Detail, "No "+k+" ")
			}
		}
		if x.Summary == "Unknown service" && servicesBroken {
			drop = true
		}
		if !drop {
			kept = append(kept, x)
		}
	}
	d.diags = kept
}

func errorCount(diags hcl.Diagnostics) int {
	n := 0
	for _, x := range diags {
		if x.Severity == hcl.DiagError {
			n++
		}
	}
	return n
}

// The ranks of diagnostics, root cause first. A block (or column) with an
// error is left out of the lab, so what refers to it fails too, often in a
// file that sorts before it; the docs tell authors to fix the first error
// first, so that first error must be the cause, not a knock-on. Sorting by
// rank keeps each rank in file and line order; marking every knock-on
// instead would need each check to know what was left out and why.
const (
	// rankSchema: HCL's own schema errors, a misspelt, missing or
	// unexpected attribute, block or label, which leave a block out.
	rankSchema = iota
	// rankDeclaration: the rest of what the lab, variable, stack and
	// table blocks report, the declarations the other blocks refer to.
	rankDeclaration
	// rankReference: producers, jobs, presets, controls, experiments and
	// the whole-lab checks, which refer to the declarations.
	rankReference
)

// rank places a diagnostic of this load among the ranks above.
func (d *decoder) rank(x *hcl.Diagnostic) int {
	switch {
	case schemaError(x.Summary):
		return rankSchema
	case d.declarations[x]:
		return rankDeclaration
	}
	return rankReference
}

// schemaError tells HCL's summaries for a body that does not fit its
// schema (hclsyntax's Body.Content and hcl.MergeBodies), and labgen's own
// for an object attribute's keys (objectAttrs).
func schemaError(summary string) bool {
	switch summary {
	case "Unsupported argument", "Unsupported block type", "Missing required argument", "Duplicate argument":
		return true
	}
	return strings.HasPrefix(summary, "Extraneous label for ") ||
		strings.HasPrefix(summary, "Missing ") && strings.Contains(summary, " for ") ||
		strings.HasPrefix(summary, "Unexpected ") && strings.HasSuffix(summary, " block")
}

// sortDiags orders diagnostics so that output is stable and root causes
// come first: those without a place (a missing lab block, a -var for an
// undeclared variable), then by rank, then by file and position.
func sortDiags(diags hcl.Diagnostics, rank func(*hcl.Diagnostic) int) hcl.Diagnostics {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case rank(diags[i]) != rank(diags[j]):
			return rank(diags[i]) < rank(diags[j])
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		default:
			return a.Start.Byte < b.Start.Byte
		}
	})
	return diags
}

// renderedHint points from a rendered lab directory (lab.json, no .hcl
// files) to the lab it was rendered from, the directory to give instead.
func renderedHint(dir string) string {
	b, err := readLabFile(dir, "lab.json") // a regular file, of a bounded size
	if err != nil {
		return ""
	}
	var l struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(b, &l) != nil || l.Name == "" {
		return ""
	}
	return fmt.Sprintf(" It is a lab rendered by labgen render (its lab.json is lab %q): give the lab's own directory, the one with its .hcl files (labs/%s in labgen's repository).", l.Name, l.Name)
}
