package schemas

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/sqlread"
)

// Catalog names under which rendered Flink jobs see Fluss and Iceberg
// tables (Paimon's: PaimonCatalog); job queries name lake tables as
// <catalog>.<database>.<table>.
const (
	FlussCatalog   = "fluss_catalog"
	IcebergCatalog = "iceberg_catalog"
)

var jobSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "mode", Required: true}, {Name: "description"},
		{Name: "reads", Required: true}, {Name: "writes", Required: true},
		{Name: "query", Required: true}, {Name: "settings"},
	},
}

func (d *decoder) decodeJob(b *hcl.Block) *Job {
	name := b.Labels[0]
	if !d.checkName(name, b.LabelRanges[0], "job") {
		return nil
	}
	if prev, ok := d.jobs[name]; ok {
		d.errorf(b.LabelRanges[0], "Duplicate job", "A job named %q was already declared at %s.", name, prev)
		return nil
	}
	d.jobs[name] = b.DefRange
	before := len(d.diags)
	content, diags := b.Body.Content(jobSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	at := content.Attributes
	j := &Job{Name: name, DeclRange: b.DefRange}
	j.Mode = d.oneOf(at["mode"], ModeStreaming, ModeStreaming, ModeBatch)
	j.Description = trimText(d.str(at["description"]))
	var readRanges []hcl.Range
	j.Reads, readRanges = d.refList(at["reads"], "table")
	for i, r := range j.Reads {
		d.tableRef(exprAt(readRanges[i]), r)
	}
	j.Writes, _ = d.ref(at["writes"].Expr, "table")
	out := d.tableRef(at["writes"].Expr, j.Writes)
	j.Query = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.str(at["query"])), ";"))
	j.QueryFile = fileArg(at["query"].Expr)
	if sa := at["settings"]; sa != nil {
		j.Settings = d.settings(sa)
	}
	if len(d.diags) > before { // the query analysis below would only repeat them
		return j
	}

	// Which stores the query reads: lake tables by catalog-qualified name,
	// the rest by their plain name in the default catalog.
	// Undeclared names are reported by checkJobQuery, at their place in
	// the query.
	src := d.sqlSourceOf(at["query"], j.Query)
	j.QuerySource = &SQLSource{src}
	refs := catalogRefs(j.Query)
	for _, ref := range refs {
		t := d.lab.Table(ref.table)
		if t == nil || !contains(j.Reads, ref.table) {
			continue
		}
		j.Uses = append(j.Uses, StoreUse{LakeByCatalog(ref.catalog).Kind, t.Name})
	}
	for i, r := range j.Reads {
		t := d.lab.Table(r)
		if t == nil {
			continue
		}
		named := false
		for _, ref := range refs {
			named = named || ref.table == r
		}
		if mentionsPlain(j.Query, r) {
			named = true
			src := t.Store(StoreMySQL)
			if src == nil {
				src = t.Store(StorePostgres)
			}
			if src == nil {
				src = t.Store(StoreKafka)
			}
			if src == nil {
				if !d.declaredStore(t, StoreMySQL) && !d.declaredStore(t, StorePostgres) && !d.declaredStore(t, StoreKafka) {
					d.errorf(readRanges[i], "Table not readable by Flink", "Job %s reads %s by its plain name, which means its MySQL or PostgreSQL (CDC) or Kafka store, but the table has none of them.", name, r)
				} else {
					j.Uses = append(j.Uses, StoreUse{UseMissing, r})
				}
				continue
			}
			if j.Mode == ModeBatch && src.Kind == StoreKafka && !src.AppendOnly {
				// Flink reads upsert-kafka only as a changelog, which batch
				// mode refuses even with a bounded end offset ("only
				// possible for INSERT-only table sources"). MySQL and
				// PostgreSQL stores are read through JDBC instead of CDC.
				d.errorf(readRanges[i], "Batch job reads an upsert topic", "Job %s runs in batch mode, but reads %s by its plain name, which is its Kafka store: an upsert topic, which Flink reads only as an unbounded changelog. Declare append_only = true in the kafka store of %s if every message is a new row, read a lake store (%s), or make the job streaming.", name, r, r, joinList(lakeRefs("<db>", r), "or"))
			}
			j.Uses = append(j.Uses, StoreUse{src.Kind, r})
		}
		if !named && strings.TrimSpace(stripSQLComments(j.Query)) != "" { // an empty query is an error of its own
			d.warnf(readRanges[i], "Table read but not used", "Job %s reads %s, but its query never names it (as %s, %s).", name, r, r, joinList(lakeRefs("<db>", r), "or"))
		}
	}
	sort.Slice(j.Uses, func(a, b int) bool { return j.Uses[a].Less(j.Uses[b]) })
	j.Uses = slices.Compact(j.Uses)
	d.checkJobQuery(j, src, out)

	if out != nil && len(FlinkSinks(out)) == 0 {
		declared := false
		var kinds []string
		for _, k := range StoreRegistry {
			if k.FlinkWrites {
				kinds = append(kinds, k.Kind)
				declared = declared || d.declaredStore(out, k.Kind)
			}
		}
		if !declared {
			d.errorf(at["writes"].Expr.Range(), "Table not writable by Flink", "Job %s writes %s, but the table has no %s store for Flink to write to.", name, out.Name, orList(kinds))
		}
	}
	return j
}

// declaredStore tells whether the table's block declared a store of kind,
// even if the stack left it out.
func (d *decoder) declaredStore(t *Table, kind string) bool {
	return t.Store(kind) != nil || d.droppedStores[t.Name+":"+kind]
}

// FlinkSinks lists the stores of a table a Flink job writes to.
func FlinkSinks(t *Table) []*Store {
	var out []*Store
	for _, s := range t.Stores {
		if StoreKindOf(s.Kind).FlinkWrites {
			out = append(out, s)
		}
	}
	return out
}

type catalogRef struct{ catalog, db, table string }

var catalogRefPattern = regexp.MustCompile("(?i)\\b(" + strings.Join(LakeCatalogs(), "|") + ")\\s*\\.\\s*`?([a-z0-9_]+)`?\\s*\\.\\s*`?([a-z0-9_$]+)`?")

// catalogRefs finds lake tables named in a query, in order of appearance.
// `table$lake` reads only the lake part of a Fluss table; it is the same
// table for the purpose of declaring it.
func catalogRefs(query string) []catalogRef {
	var out []catalogRef
	for _, m := range catalogRefPattern.FindAllStringSubmatch(stripSQLComments(query), -1) {
		t, _, _ := strings.Cut(strings.ToLower(m[3]), "$")
		out = append(out, catalogRef{strings.ToLower(m[1]), strings.ToLower(m[2]), t})
	}
	return out
}

// mentionsPlain tells whether the query names a table by its bare name
// (not as part of a qualified name or a longer identifier).
func mentionsPlain(query, table string) bool {
	re := regexp.MustCompile("(?i)(^|[^.\\w`])`?" + regexp.QuoteMeta(table) + "`?($|[^.\\w])")
	return re.MatchString(stripSQLComments(query))
}

var commentPattern = regexp.MustCompile(`(?m)--.*$|/\*(?s:.*?)\*/`)

func stripSQLComments(s string) string { return commentPattern.ReplaceAllString(s, " ") }

// fileArg returns the path of a file("...") call, for messages and lab.json.
func fileArg(expr hcl.Expression) string {
	call, ok := expr.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != "file" || len(call.Args) != 1 {
		return ""
	}
	v, diags := call.Args[0].Value(nil)
	if diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
		return ""
	}
	return v.AsString()
}

// exprAt wraps a range so that helpers taking an expression can report at it.
func exprAt(r hcl.Range) hcl.Expression {
	return &hclsyntax.LiteralValueExpr{Val: cty.NullVal(cty.String), SrcRange: r}
}

var presetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "engine", Required: true}, {Name: "title"}, {Name: "description"}, {Name: "sql", Required: true},
		{Name: "needs"},
	},
}

func (d *decoder) decodePreset(b *hcl.Block) *Preset {
	name := b.Labels[0]
	if !d.checkName(name, b.LabelRanges[0], "preset") {
		return nil
	}
	if prev, ok := d.presets[name]; ok {
		d.errorf(b.LabelRanges[0], "Duplicate preset", "A preset named %q was already declared at %s.", name, prev)
		return nil
	}
	d.presets[name] = b.DefRange
	content, diags := b.Body.Content(presetSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	at := content.Attributes
	p := &Preset{Name: name, DeclRange: b.DefRange}
	p.Engine = d.oneOf(at["engine"], "", EngineMySQL, EnginePostgres, EngineClickHouse)
	p.Title = d.str(at["title"])
	p.Description = trimText(d.str(at["description"]))
	p.SQL = strings.TrimSpace(d.str(at["sql"]))
	if p.SQL != "" {
		if err := sqlread.Check(p.Engine, p.SQL); err != nil {
			d.errorf(at["sql"].Expr.Range(), "Preset is not read-only", "Preset %s must be a single read-only statement: %s.", name, err)
		} else {
			src := d.sqlSourceOf(at["sql"], p.SQL)
			p.SQLSource = &SQLSource{src}
			d.checkPresetSQL(p, src)
			d.checkSQLTables("Preset "+name, p.Engine, p.SQL, src)
		}
	}
	if p.Engine != "" && !d.lab.Stack.Has(p.Engine) {
		p.Unavailable = fmt.Sprintf("needs %s, which the stack does not run", p.Engine)
	}
	var needRanges []hcl.Range
	p.Needs, needRanges = d.refList(at["needs"], "job")
	for i, n := range p.Needs {
		if d.lab.Job(n) == nil {
			d.errorf(needRanges[i], "Reference to undeclared job", "No job named %q is declared in this lab.%s", n, d.jobHint(n))
		}
	}
	return p
}

// Preset returns the named preset, or nil.
func (l *Lab) Preset(name string) *Preset {
	for _, p := range l.Presets {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Job returns the named job, or nil.
func (l *Lab) Job(name string) *Job {
	for _, j := range l.Jobs {
		if j.Name == name {
			return j
		}
	}
	return nil
}

// settings reads a map of strings as SET statements, sorted by key.
func (d *decoder) settings(a *hcl.Attribute) []Setting {
	v, ok := d.value(a, cty.Map(cty.String), "a map of strings")
	if !ok {
		return nil
	}
	var out []Setting
	for k, x := range v.AsValueMap() {
		out = append(out, Setting{Key: k, Value: x.AsString()})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out
}
