package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

var tableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "key", Required: true}, {Name: "processing_time"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "column", LabelNames: []string{"name"}},
		{Type: "store", LabelNames: []string{"kind"}},
		{Type: "event_time"},
	},
}

var eventTimeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "column", Required: true}, {Name: "lateness"}},
}

var columnSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type", Required: true}, {Name: "nullable"}, {Name: "description"}},
}

func (d *decoder) decodeTable(b *hcl.Block) *Table {
	name := b.Labels[0]
	if !d.checkName(name, b.LabelRanges[0], "table") {
		return nil
	}
	if prev, ok := d.tables[name]; ok {
		d.errorf(b.LabelRanges[0], "Duplicate table", "A table named %q was already declared at %s.", name, prev)
		return nil
	}
	d.tables[name] = b.DefRange
	content, diags := b.Body.Content(tableSchema)
	d.diags = append(d.diags, diags...)
	t := &Table{Name: name, DeclRange: b.DefRange, Description: trimText(d.str(content.Attributes["description"]))}

	cols := map[string]*Column{}
	var stores, times []*hcl.Block
	for _, cb := range content.Blocks {
		if cb.Type == "store" {
			stores = append(stores, cb)
			continue
		}
		if cb.Type == "event_time" {
			times = append(times, cb)
			continue
		}
		cname := cb.Labels[0]
		if !d.checkName(cname, cb.LabelRanges[0], "column") {
			continue
		}
		if prev, ok := cols[cname]; ok {
			d.errorf(cb.LabelRanges[0], "Duplicate column", "Table %s already has a column %q, declared at %s.", name, cname, prev.DeclRange)
			continue
		}
		cc, diags := cb.Body.Content(columnSchema)
		d.diags = append(d.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		col := &Column{Name: cname, DeclRange: cb.DefRange}
		ta := cc.Attributes["type"]
		before := len(d.diags)
		if s := d.str(ta); len(d.diags) == before {
			// An invalid type leaves the column's type empty, so that
			// checks against it are skipped rather than repeated.
			lt, err := ParseType(s)
			if err != nil {
				d.errorf(ta.Expr.Range(), "Invalid column type", "%s.", err)
			} else {
				col.Type = lt
			}
		}
		col.Nullable = d.boolean(cc.Attributes["nullable"], false)
		col.Description = trimText(d.str(cc.Attributes["description"]))
		cols[cname] = col
		t.Columns = append(t.Columns, col)
	}
	if len(t.Columns) == 0 {
		d.errorf(b.DefRange, "Table without columns", "Table %s declares no column; add column \"name\" { type = \"bigint\" } blocks.", name)
	}

	if ka := content.Attributes["key"]; ka != nil {
		before := len(d.diags)
		t.Key = d.strList(ka)
		if len(t.Key) == 0 && len(d.diags) == before {
			d.errorf(ka.Expr.Range(), "Empty key", "Table %s needs at least one key column: every store keeps the latest row per key.", name)
		}
		for _, k := range t.Key {
			c, ok := cols[k]
			switch {
			case !ok:
				d.errorf(ka.Expr.Range(), "Unknown key column", "Table %s has no column %q to use as its key.%s", name, k, columnHint(t, k))
			case c.Nullable:
				d.errorf(ka.Expr.Range(), "Nullable key column", "Key column %q of table %s is nullable; key columns must not be.", k, name)
			}
		}
	}

	t.Time = d.decodeTime(t, cols, times, content.Attributes["processing_time"], nil)
	seen := map[string]hcl.Range{}
	for _, sb := range stores {
		kind := sb.Labels[0]
		sk := StoreKindOf(kind)
		if sk == nil {
			d.errorf(sb.LabelRanges[0], "Unknown store", "A table can be stored in %s, not %q.", quoteList(storeKinds), kind)
			continue
		}
		if prev, dup := seen[kind]; dup {
			d.errorf(sb.LabelRanges[0], "Duplicate store", "Table %s already has a %s store at %s.", name, kind, prev)
			continue
		}
		seen[kind] = sb.DefRange
		sc, diags := sb.Body.Content(sk.schema())
		d.diags = append(d.diags, diags...)
		s := &Store{Kind: kind, Name: name, DeclRange: sb.DefRange}
		if n := d.identifier(sc.Attributes["name"]); n != "" {
			s.Name = n
		}
		if !d.lab.Stack.Has(kind) {
			d.droppedStores[name+":"+kind] = true
			if !contains(d.lab.Stack.Disabled, kind) {
				d.warnf(sb.DefRange, "Store without component", "Table %s is stored in %s, but the stack does not run %s; this store is left out.", name, kind, kind)
			}
			continue
		}
		if sk.Timed {
			s.Time = d.decodeTime(t, cols, sc.Blocks, sc.Attributes["processing_time"], t.Time)
		}
		s.AppendOnly = d.boolean(sc.Attributes["append_only"], false)
		sk.decode(d, s, sc, t, cols)
		// Two tables in one place would overwrite each other's rows.
		where := kind + " " + s.Database + "." + s.Name
		if prev, ok := d.storeOwners[where]; ok && prev.table != name {
			d.errorf(sb.DefRange, "Two tables in one place", "Table %s's %s store is %s, which table %s's store at %s already is; give one of them another name.", name, kind, storePlace(s), prev.table, prev.at)
		} else if !ok {
			if d.storeOwners == nil {
				d.storeOwners = map[string]storeOwner{}
			}
			d.storeOwners[where] = storeOwner{name, sb.DefRange}
		}
		t.Stores = append(t.Stores, s)
	}
	// ClickHouse ingests from the table's topic unless told otherwise.
	if ch := t.Store(StoreClickHouse); ch != nil {
		if _, explicit := seenAttr(stores, StoreClickHouse, "ingest"); !explicit && t.Store(StoreKafka) != nil {
			ch.Ingest = StoreKafka
		}
		if ch.Ingest == StoreKafka && t.Store(StoreKafka) == nil {
			d.errorf(ch.DeclRange, "Nothing to ingest", "The ClickHouse store of %s ingests from Kafka, but the table has no kafka store.", name)
		}
	}
	if len(stores) == 0 {
		d.errorf(b.DefRange, "Table without store", "Table %s says nowhere where it lives; add a store block such as store \"mysql\" {}.", name)
	}
	return t
}

// seenAttr tells whether the store block of a kind sets an attribute.
func seenAttr(stores []*hcl.Block, kind, attr string) (*hcl.Attribute, bool) {
	for _, sb := range stores {
		if sb.Labels[0] != kind {
			continue
		}
		attrs, _ := sb.Body.JustAttributes()
		a, ok := attrs[attr]
		return a, ok
	}
	return nil, false
}

func (d *decoder) topic(a *hcl.Attribute, def string) string {
	s := d.str(a)
	if s == "" {
		return def
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			d.errorf(a.Expr.Range(), "Invalid topic name", "Kafka topic names use letters, digits, '.', '_' and '-'; %q does not.", s)
			return def
		}
	}
	return s
}

// Store returns the table's store of a kind, or nil.
func (t *Table) Store(kind string) *Store {
	for _, s := range t.Stores {
		if s.Kind == kind {
			return s
		}
	}
	return nil
}

// Column returns the named column, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Table returns the named table, or nil.
func (l *Lab) Table(name string) *Table {
	for _, t := range l.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// MaxRound is the most decimal places a field's round keeps (the
// generator rounds with powers of ten a float64 holds exactly enough).
const MaxRound = 30

// storeOwner is the table whose store is at a place (storeOwners).
type storeOwner struct {
	table string
	at    hcl.Range
}

// storePlace names where a store keeps its rows, for messages.
func storePlace(s *Store) string {
	if s.Kind == StoreKafka {
		return fmt.Sprintf("the topic %q", s.Name)
	}
	if s.Database != "" {
		return fmt.Sprintf("the table %s.%s", s.Database, s.Name)
	}
	return fmt.Sprintf("the table %s", s.Name)
}

var producerSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "table", Required: true}, {Name: "rate", Required: true}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "field", LabelNames: []string{"column"}},
		{Type: "follow", LabelNames: []string{"name"}},
	},
}

var fieldSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "value", Required: true}, {Name: "round"}},
}

var followSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "table", Required: true}, {Name: "delay", Required: true},
		{Name: "outcome", Required: true}, {Name: "never"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "field", LabelNames: []string{"column"}},
		{Type: "update"},
	},
}

func (d *decoder) decodeProducer(b *hcl.Block) *Producer {
	name := b.Labels[0]
	if !d.checkName(name, b.LabelRanges[0], "producer") {
		return nil
	}
	if prev, ok := d.producers[name]; ok {
		d.errorf(b.LabelRanges[0], "Duplicate producer", "A producer named %q was already declared at %s.", name, prev)
		return nil
	}
	d.producers[name] = b.DefRange
	content, diags := b.Body.Content(producerSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	p := &Producer{Name: name, DeclRange: b.DefRange}
	ta := content.Attributes["table"]
	p.Table, _ = d.ref(ta.Expr, "table")
	table := d.tableRef(ta.Expr, p.Table)
	ra := content.Attributes["rate"]
	before := len(d.diags)
	p.Rate = d.float(ra)
	if p.Rate <= 0 && len(d.diags) == before {
		d.errorf(ra.Expr.Range(), "Invalid rate", "rate is rows per second and must be positive, not %g.", p.Rate)
	}
	d.checkSourceStore(ta, table, "Producer table")

	var fieldBlocks []*hcl.Block
	for _, fb := range content.Blocks {
		if fb.Type == "field" {
			fieldBlocks = append(fieldBlocks, fb)
		}
	}
	p.Fields = d.decodeFields(b, fieldBlocks, table, nil)
	d.currentParent = p.Table
	follows := map[string]hcl.Range{}
	for _, fb := range content.Blocks {
		if fb.Type == "follow" {
			if prev, dup := follows[fb.Labels[0]]; dup {
				d.errorf(fb.LabelRanges[0], "Duplicate follow", "Producer %s already has a follow %q at %s.", name, fb.Labels[0], prev)
				continue
			}
			follows[fb.Labels[0]] = fb.DefRange
			if f := d.decodeFollow(fb, table); f != nil {
				p.Follows = append(p.Follows, f)
			}
		}
	}
	return p
}

// tableRef resolves a table name from a reference, reporting unknown ones.
func (d *decoder) tableRef(expr hcl.Expression, name string) *Table {
	if name == "" {
		return nil
	}
	t := d.lab.Table(name)
	if t == nil {
		d.errorf(expr.Range(), "Reference to undeclared table", "No table named %q is declared in this lab.%s", name, d.tableHint(name))
	}
	return t
}

func (d *decoder) decodeFollow(b *hcl.Block, parent *Table) *Follow {
	content, diags := b.Body.Content(followSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	f := &Follow{Name: b.Labels[0], DeclRange: b.DefRange}
	d.checkName(f.Name, b.LabelRanges[0], "follow")
	ta := content.Attributes["table"]
	f.Table, _ = d.ref(ta.Expr, "table")
	table := d.tableRef(ta.Expr, f.Table)
	d.checkSourceStore(ta, table, "Follow-up table")

	da := content.Attributes["delay"]
	f.Delay = d.dist(da, "A delay is a number of seconds, a duration, or a numeric distribution such as exponential(\"45s\")")
	if f.Delay != nil && f.Delay.Kind == DistOutcomeMap {
		// A delay per outcome: each entry is a delay of its own.
		for i := range f.Delay.Map {
			m := &f.Delay.Map[i]
			if m.Dist == nil {
				m.Dist = &Dist{Kind: DistConstant, Value: m.Value}
				m.Value = nil
			}
			d.checkDelay(da.Expr.Range(), m.Dist)
		}
	} else {
		d.checkDelay(da.Expr.Range(), f.Delay)
	}
	oa := content.Attributes["outcome"]
	if o, ok := oa.Expr.(*hclsyntax.ObjectConsExpr); ok {
		// The weights without weighted(): show them wrapped, as the
		// author wrote them where they fit one line.
		d.errorf(oa.Expr.Range(), "Invalid outcome", "outcome takes weighted(): outcome = weighted(%s).", weightsSource(d, o))
	} else {
		f.Outcome = d.dist(oa, "The outcome is a weighted choice, as in outcome = weighted({ PAID = 80, FAILED = 20 })")
	}
	if f.Outcome != nil && f.Outcome.Kind != DistWeighted {
		d.errorf(oa.Expr.Range(), "Invalid outcome", "The outcome is a weighted choice, as in outcome = weighted({ PAID = 80, FAILED = 15, NONE = 5 }).")
		f.Outcome = nil
	}
	if na := content.Attributes["never"]; na != nil {
		f.Never = d.str(na)
		if f.Outcome != nil && !f.Outcome.hasChoice(f.Never) {
			d.errorf(na.Expr.Range(), "Unknown outcome", "never names %q, which is not one of the outcomes.", f.Never)
		}
	}
	if f.Delay != nil && f.Delay.Kind == DistOutcomeMap && f.Outcome != nil {
		for _, m := range f.Delay.Map {
			if !f.Outcome.hasChoice(m.Outcome) {
				d.errorf(da.Expr.Range(), "Unknown outcome", "The delay names the outcome %q, which is not one of the outcomes.", m.Outcome)
			}
		}
		for _, c := range f.Outcome.Choices {
			found := c.Value == f.Never
			for _, m := range f.Delay.Map {
				found = found || m.Outcome == c.Value
			}
			if !found {
				d.errorf(da.Expr.Range(), "Outcome not mapped", "The delay has no value for the outcome %q.", c.Value)
			}
		}
	}

	var fieldBlocks []*hcl.Block
	updated := false
	for _, fb := range content.Blocks {
		switch fb.Type {
		case "field":
			fieldBlocks = append(fieldBlocks, fb)
		case "update":
			if updated {
				d.errorf(fb.DefRange, "Duplicate update block", "A follow-up updates its parent row once; merge the update blocks.")
				continue
			}
			updated = true
			if parent != nil {
				for _, st := range parent.Stores {
					if st.AppendOnly && IsSourceStore(st.Kind) {
						d.errorf(fb.DefRange, "Update of an append-only table", "The %s store of %s is append_only, so Flink reads every change of it as a new row; a follow-up that updates %s would add a second row instead. Drop the update block or append_only.", st.Kind, parent.Name, parent.Name)
					}
				}
			}
			f.Update = d.decodeUpdate(fb, parent, f)
			if parent != nil {
				f.UpdateTable = parent.Name
			}
		}
	}
	f.Fields = d.decodeFields(b, fieldBlocks, table, f)
	return f
}

var delayKinds = map[string]bool{
	DistConstant: true, DistUniform: true, DistUniformInt: true, DistNormal: true,
	DistLogNormal: true, DistExponential: true,
}

// weightsSource is an object's items on one line, as in
// { PAID = 80, FAILED = 20 }, or that example where they do not fit one.
func weightsSource(d *decoder, o *hclsyntax.ObjectConsExpr) string {
	const example = "{ PAID = 80, FAILED = 20 }"
	var items []string
	for _, it := range o.Items {
		items = append(items, exprSource(d, it.KeyExpr)+" = "+exprSource(d, it.ValueExpr))
	}
	s := "{ " + strings.Join(items, ", ") + " }"
	if len(items) == 0 || len(s) > 100 || strings.ContainsAny(s, "\n\r") {
		return example
	}
	return s
}

func (x *Dist) hasChoice(v string) bool {
	for _, c := range x.Choices {
		if c.Value == v {
			return true
		}
	}
	return false
}

// decodeUpdate reads update { column = value, ... }: the columns of the
// parent row a follow-up changes.
func (d *decoder) decodeUpdate(b *hcl.Block, parent *Table, f *Follow) []*Field {
	attrs, diags := b.Body.JustAttributes()
	d.diags = append(d.diags, diags...)
	var out []*Field
	for _, a := range sortedAttrs(attrs) {
		fd := &Field{Name: a.Name, DeclRange: a.Range, Dist: d.dist(a, fmt.Sprintf("The new value of %s is a constant or a distribution such as uniform(1, 10)", a.Name))}
		if parent != nil {
			col := parent.Column(a.Name)
			if col == nil {
				d.errorf(a.NameRange, "Unknown column", "Table %s has no column %q to update.%s", parent.Name, a.Name, columnHint(parent, a.Name))
				continue
			}
			if contains(parent.Key, a.Name) {
				d.errorf(a.NameRange, "Key column updated", "%q is part of the key of %s; a follow-up updates the row it belongs to and cannot change its key.", a.Name, parent.Name)
				continue
			}
			d.checkDist(a.Expr.Range(), fd.Dist, col, parent, f, true)
		}
		out = append(out, fd)
	}
	return out
}

// decodeFields reads the field blocks of owner (a producer or follow
// block) for a table; follow is nil for the producer's own rows.
func (d *decoder) decodeFields(owner *hcl.Block, blocks []*hcl.Block, table *Table, follow *Follow) []*Field {
	var out []*Field
	seen := map[string]hcl.Range{}
	for _, fb := range blocks {
		name := fb.Labels[0]
		if prev, ok := seen[name]; ok {
			d.errorf(fb.LabelRanges[0], "Duplicate field", "Column %q already has a field at %s.", name, prev)
			continue
		}
		seen[name] = fb.DefRange
		fc, diags := fb.Body.Content(fieldSchema)
		d.diags = append(d.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		fd := &Field{Name: name, DeclRange: fb.DefRange, Dist: d.dist(fc.Attributes["value"], "A field value is a constant or a distribution such as uniform(1, 10)")}
		if ra := fc.Attributes["round"]; ra != nil {
			r := d.atLeast(ra, 0, 0)
			if r > MaxRound {
				d.errorf(ra.Expr.Range(), "Invalid number", "round keeps at most %d decimal places, not %d.", MaxRound, r)
				r = MaxRound
			}
			fd.Round = &r
		}
		if table != nil {
			col := table.Column(name)
			if col == nil {
				d.errorf(fb.LabelRanges[0], "Unknown column", "Table %s has no column %q.%s", table.Name, name, columnHint(table, name))
				continue
			}
			var parent *Table
			if follow != nil {
				parent = d.lab.Table(d.currentParent)
			}
			d.rowAbove, d.rowTable = out, table
			d.checkDist(fc.Attributes["value"].Expr.Range(), fd.Dist, col, parent, follow, false)
			d.rowAbove, d.rowTable = nil, nil
			if fd.Round != nil && col.Type.Kind != "" && !col.Type.IsNumeric() {
				d.errorf(fc.Attributes["round"].Expr.Range(), "Rounding a non-number", "Column %q is %s; round applies to numbers.", name, col.Type)
			}
		}
		out = append(out, fd)
	}
	if table != nil {
		for _, c := range table.Columns {
			if _, ok := seen[c.Name]; !ok && !c.Nullable {
				d.errorf(owner.DefRange, "Column without a value", "Column %q of table %s is not nullable, but no field gives it a value; add field %q { value = ... }.", c.Name, table.Name, c.Name)
			}
		}
	}
	return out
}

// dist evaluates a field value, an update's value, a delay or an
// outcome: a distribution call or a constant. what says what the
// attribute takes, for the message when its value is neither.
func (d *decoder) dist(a *hcl.Attribute, what string) *Dist {
	if a == nil {
		return nil
	}
	v, diags := d.timeValue(a.Expr)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	if v.Type() == durationType {
		d.errorf(a.Expr.Range(), "A duration alone", "%s; a duration is added to a time, as in now() + duration(\"14d\").", what)
		return nil
	}
	if v.Type() == distType {
		if v.IsNull() { // as in cond ? uniform(1, 2) : null
			return &Dist{Kind: DistConstant}
		}
		x := *v.EncapsulatedValue().(*Dist)
		return &x
	}
	c, err := constant(v)
	if err != nil {
		d.errorf(a.Expr.Range(), "Invalid value", "%s: %s.", what, err)
		return nil
	}
	return &Dist{Kind: DistConstant, Value: c}
}

// checkDist checks a distribution against the column it fills.
func (d *decoder) checkDist(rng hcl.Range, x *Dist, col *Column, parent *Table, follow *Follow, update bool) {
	if x == nil {
		return
	}
	t := col.Type
	bad := func(detail string, args ...any) {
		if t.Kind == "" {
			return // the column's type is invalid and already reported
		}
		d.errorf(rng, "Value does not fit the column", "Column %q is %s: "+detail, append([]any{col.Name, t}, args...)...)
	}
	switch x.Kind {
	case DistConstant:
		if fitsKind(t, x.Value) {
			d.checkFits(rng, x, col, follow)
		}
		switch v := x.Value.(type) {
		case nil:
			if !col.Nullable {
				bad("it is not nullable, so it cannot be null.")
			}
		case string:
			if t.IsNumeric() {
				bad("a number is required, not the string %q.", v)
			}
		case bool:
			if t.Kind != TypeBoolean {
				bad("true or false fits only boolean columns.")
			}
		default:
			if !t.IsNumeric() && t.Kind != TypeString {
				bad("a number does not fit it.")
			}
		}
	case DistUniform, DistNormal, DistLogNormal, DistExponential:
		if !t.IsNumeric() {
			bad("%s gives numbers.", x.Kind)
		}
		if lo, hi, ok := typeRange(t); ok {
			if share := shareOutside(x, lo, hi); share >= shareWarn {
				d.warnf(rng, "Distribution leaves the column's range", "%s puts %s of its values outside the range of %s (%s); MySQL refuses those rows and the producer stops. Narrow it or declare { min, max }.", describeDist(x), percent(share), t, col.Name)
			}
		}
	case DistUniformInt, DistSequence:
		if !t.IsNumeric() && t.Kind != TypeString {
			bad("%s gives whole numbers.", x.Kind)
		}
		if lo, hi, ok := typeRange(t); ok && x.Kind == DistUniformInt {
			if share := shareOutside(x, lo, hi); share >= shareWarn {
				d.warnf(rng, "Distribution leaves the column's range", "%s puts %s of its values outside the range of %s (%s); MySQL refuses those rows and the producer stops. Narrow it or declare { min, max }.", describeDist(x), percent(share), t, col.Name)
			}
		}
	case DistWeighted:
		if t.Kind != TypeString && !t.IsNumeric() {
			bad("weighted gives the chosen keys, which fit string and number columns.")
		} else {
			d.checkFits(rng, x, col, follow)
		}
	case DistNow:
		if t.Kind != TypeTimestamp && t.Kind != TypeDate {
			bad("now() fits timestamp and date columns.")
		}
	case DistParent:
		if follow == nil && !update {
			d.errorf(rng, "parent() outside a follow-up", "parent() takes a value from the row a follow-up belongs to; the producer's own rows have none.")
			return
		}
		if parent != nil && parent.Column(x.Field) == nil {
			d.errorf(rng, "Unknown parent column", "The parent table %s has no column %q.%s", parent.Name, x.Field, columnHint(parent, x.Field))
			return
		}
		if x.Offset != 0 && parent != nil {
			d.checkShifted(rng, "parent", parent.Column(x.Field), col, bad)
		}
	case DistField:
		if update {
			d.errorf(rng, "field() in an update", "field() reads another field of the row being written; an update has none. Use parent(%q) for the parent row's value.", x.Field)
			return
		}
		var above *Field
		for _, f := range d.rowAbove {
			if f.Name == x.Field {
				above = f
			}
		}
		if above == nil {
			hint := ""
			switch {
			case x.Field == col.Name:
				hint = " A field cannot read itself."
			case d.rowTable != nil && d.rowTable.Column(x.Field) != nil:
				hint = fmt.Sprintf(" Declare field %q above this one.", x.Field)
			case d.rowTable != nil:
				hint = columnHint(d.rowTable, x.Field)
			}
			d.errorf(rng, "Unknown field", "No field %q is declared above this one; field() reads a field of the same row declared before it.%s", x.Field, hint)
			return
		}
		if x.Offset != 0 && d.rowTable != nil {
			d.checkShifted(rng, "field", d.rowTable.Column(x.Field), col, bad)
		}
	case DistOutcome, DistOutcomeMap:
		defer d.checkFits(rng, x, col, follow)
		if follow == nil {
			d.errorf(rng, x.Kind+"() outside a follow-up", "%s() takes the follow-up's outcome; the producer's own rows have none.", x.Kind)
			return
		}
		if x.Kind == DistOutcome && t.Kind != TypeString {
			bad("outcome() gives the outcome's name, a string.")
		}
		if x.Kind == DistOutcomeMap {
			for _, m := range x.Map {
				if m.Dist != nil && m.Dist.Kind != DistNow && m.Dist.Kind != DistParent {
					d.errorf(rng, "Invalid value", "outcome_map's value of %q is %s; in a field or an update, only constants, now() and parent() can be mapped (a follow-up's delay may map distributions).", m.Outcome, m.Dist.Kind)
				}
			}
		}
		if x.Kind == DistOutcomeMap && follow.Outcome != nil {
			for _, c := range follow.Outcome.Choices {
				if c.Value == follow.Never {
					continue
				}
				found := false
				for _, m := range x.Map {
					found = found || m.Outcome == c.Value
				}
				if !found {
					d.errorf(rng, "Outcome not mapped", "outcome_map has no value for the outcome %q.", c.Value)
				}
			}
		}
	}
}

// checkDelay checks a follow-up's delay, or one outcome's: a number of
// seconds (a duration string becomes one), or a numeric distribution,
// never below zero.
func (d *decoder) checkDelay(rng hcl.Range, x *Dist) {
	if x != nil && !delayKinds[x.Kind] {
		d.errorf(rng, "Invalid delay", "A delay is a number of seconds, a duration, or a numeric distribution such as exponential(\"45s\"); %s is not.", x.Kind)
	}
	if x != nil && x.Kind == DistConstant {
		switch n := x.Value.(type) {
		case string:
			// A constant delay written as a duration string.
			v, err := number(cty.StringVal(n))
			if err != nil {
				d.errorf(rng, "Invalid delay", "%s.", err)
			} else if v < 0 {
				d.errorf(rng, "Invalid delay", "A delay cannot be negative; %q is.", n)
			}
			x.Value = v
		case json.Number:
			if v, err := n.Float64(); err != nil || v < 0 {
				d.errorf(rng, "Invalid delay", "A delay is a number of seconds, zero or more; %s is not.", n)
			}
		default:
			d.errorf(rng, "Invalid delay", "A delay is a number of seconds or a duration such as \"45s\", not true, false or null.")
		}
	}
	if x != nil && x.Min != nil && *x.Min < 0 {
		d.errorf(rng, "Invalid delay", "A delay cannot be negative, but this %s can be as small as %g.", x.Kind, *x.Min)
	} else if x != nil {
		if share := shareOutside(x, 0, math.Inf(1)); share >= shareWarn {
			d.warnf(rng, "Delay below zero", "%s puts %s of the delays below 0 s; the producer sends those follow-ups at once (0 s). Declare { min = ... } or narrow the distribution.", describeDist(x), percent(share))
		}
	}
}

// checkShifted checks parent("c") + duration(…) or field("c") + …: c
// and the column filled are times.
func (d *decoder) checkShifted(rng hcl.Range, fn string, from, col *Column, bad func(string, ...any)) {
	if from != nil && from.Type.Kind != "" && from.Type.Kind != TypeTimestamp && from.Type.Kind != TypeDate {
		d.errorf(rng, "A duration added to a non-time", "%s(%q) is %s; a duration is added to a timestamp or a date.", fn, from.Name, from.Type)
		return
	}
	if col.Type.Kind != TypeTimestamp && col.Type.Kind != TypeDate {
		bad("a time plus a duration fits timestamp and date columns.")
	}
}

// fitsColumn tells why a constant the producer writes does not fit the
// column, or "" when it does: MySQL refuses such a row ("Data too long",
// "Out of range value") and the producer stops on it.
func fitsColumn(t LogicalType, v any) string {
	switch x := v.(type) {
	case string:
		if t.Kind == TypeString && t.Length > 0 && utf8.RuneCountInString(x) > t.Length {
			return fmt.Sprintf("%q has %d characters", x, utf8.RuneCountInString(x))
		}
		if t.IsNumeric() {
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return numberFits(t, f, x)
			}
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return ""
		}
		if t.Kind == TypeString && t.Length > 0 && len(x.String()) > t.Length {
			return fmt.Sprintf("%s has %d characters", x, len(x.String()))
		}
		return numberFits(t, f, x.String())
	}
	return ""
}

func numberFits(t LogicalType, f float64, text string) string {
	lo, hi, ok := typeRange(t)
	if ok && (f < lo || f > hi) {
		return fmt.Sprintf("%s is outside %s's range", text, t)
	}
	return ""
}

// typeRange is the range of values a numeric column holds.
func typeRange(t LogicalType) (lo, hi float64, ok bool) {
	switch t.Kind {
	case TypeTinyInt:
		return math.MinInt8, math.MaxInt8, true
	case TypeSmallInt:
		return math.MinInt16, math.MaxInt16, true
	case TypeInt:
		return math.MinInt32, math.MaxInt32, true
	case TypeBigInt:
		return math.MinInt64, math.MaxInt64, true
	case TypeDecimal:
		m := math.Pow(10, float64(t.Precision-t.Scale)) - math.Pow(10, -float64(t.Scale))
		return -m, m, true
	}
	return 0, 0, false
}

// checkFits reports every constant x can write that does not fit col.
func (d *decoder) checkFits(rng hcl.Range, x *Dist, col *Column, follow *Follow) {
	if col.Type.Kind == "" {
		return
	}
	var values []any
	switch x.Kind {
	case DistConstant:
		values = append(values, x.Value)
	case DistWeighted:
		for _, c := range x.Choices {
			values = append(values, c.Value)
		}
	case DistOutcome:
		if follow != nil && follow.Outcome != nil {
			for _, c := range follow.Outcome.Choices {
				if c.Value != follow.Never {
					values = append(values, c.Value)
				}
			}
		}
	case DistOutcomeMap:
		for _, m := range x.Map {
			if m.Dist == nil {
				values = append(values, m.Value)
			}
		}
	}
	for _, v := range values {
		if why := fitsColumn(col.Type, v); why != "" {
			d.errorf(rng, "Value does not fit the column", "Column %q is %s, but %s; MySQL would refuse the row and the producer would stop.", col.Name, col.Type, why)
		}
	}
}

// shareOutside is the probability that a draw of x falls below lo or
// above hi, leaving out a side the distribution's own min or max clamps
// inside the range. It is computed from the distribution's CDF.
func shareOutside(x *Dist, lo, hi float64) float64 {
	cdf := distCDF(x)
	if cdf == nil {
		return 0
	}
	below, above := cdf(lo), 1-cdf(hi)
	if x.Min != nil && *x.Min >= lo {
		below = 0
	}
	if x.Max != nil && *x.Max <= hi {
		above = 0
	}
	// Below lo, the CDF counts lo itself only for discrete draws, which
	// the kinds here are not.
	return max(0, below) + max(0, above)
}

// distCDF is P(X <= v) of a continuous distribution before clamping; nil
// for kinds whose values are not drawn from a continuous law.
func distCDF(x *Dist) func(float64) float64 {
	phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	switch x.Kind {
	case DistNormal:
		if x.Stddev == 0 {
			return func(v float64) float64 { return step(v >= x.Mean) }
		}
		return func(v float64) float64 { return phi((v - x.Mean) / x.Stddev) }
	case DistLogNormal:
		return func(v float64) float64 {
			if v <= 0 {
				return 0
			}
			if x.Sigma == 0 {
				return step(math.Log(v) >= x.Mu)
			}
			return phi((math.Log(v) - x.Mu) / x.Sigma)
		}
	case DistExponential:
		return func(v float64) float64 {
			if v <= 0 || x.Mean <= 0 {
				return 0
			}
			return 1 - math.Exp(-v/x.Mean)
		}
	case DistUniform, DistUniformInt:
		if x.Min == nil || x.Max == nil {
			return nil
		}
		a, b := *x.Min, *x.Max
		return func(v float64) float64 {
			switch {
			case v < a:
				return 0
			case v >= b || a == b:
				return 1
			}
			return (v - a) / (b - a)
		}
	}
	return nil
}

func step(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// shareWarn is the share of draws outside a range worth a warning.
const shareWarn = 0.01

func percent(share float64) string { return strconv.FormatFloat(share*100, 'f', 1, 64) + "%" }

// fitsKind tells whether a constant's kind suits the column, so that only
// values the type check let through are measured against it.
func fitsKind(t LogicalType, v any) bool {
	switch v.(type) {
	case string:
		return !t.IsNumeric()
	case json.Number:
		return t.IsNumeric() || t.Kind == TypeString
	}
	return false
}

// describeDist writes a distribution back in the lab's words.
func describeDist(x *Dist) string {
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch x.Kind {
	case DistNormal:
		return "normal(" + g(x.Mean) + ", " + g(x.Stddev) + ")"
	case DistLogNormal:
		return "lognormal(" + g(x.Mu) + ", " + g(x.Sigma) + ")"
	case DistExponential:
		return "exponential(" + g(x.Mean) + ")"
	case DistUniform, DistUniformInt:
		if x.Min != nil && x.Max != nil {
			return x.Kind + "(" + g(*x.Min) + ", " + g(*x.Max) + ")"
		}
	}
	return x.Kind
}

// decodeTime reads event_time { column, lateness } blocks and a
// processing_time attribute. For a store, what it leaves out is taken
// from the table's (inherit); nil when nothing is declared.
func (d *decoder) decodeTime(t *Table, cols map[string]*Column, blocks []*hcl.Block, proc *hcl.Attribute, inherit *TimeAttrs) *TimeAttrs {
	if len(blocks) == 0 && proc == nil {
		return nil
	}
	ta := &TimeAttrs{}
	if inherit != nil {
		*ta = *inherit
	}
	for i, b := range blocks {
		if i > 0 {
			d.errorf(b.DefRange, "Duplicate event_time block", "A table or store has one event-time column; the first is at %s.", blocks[0].DefRange)
			continue
		}
		c, diags := b.Body.Content(eventTimeSchema)
		d.diags = append(d.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		ca := c.Attributes["column"]
		ta.Event = d.str(ca)
		col := cols[ta.Event]
		switch {
		case col == nil:
			d.errorf(ca.Expr.Range(), "Unknown event-time column", "Table %s has no column %q.%s", t.Name, ta.Event, columnHint(t, ta.Event))
		case col.Type.Kind != "" && col.Type.Kind != TypeTimestamp:
			d.errorf(ca.Expr.Range(), "Invalid event-time column", "An event-time column is a timestamp; %q is %s.", ta.Event, col.Type)
		}
		ta.Lateness = "0s"
		if la := c.Attributes["lateness"]; la != nil {
			ta.Lateness = d.durationAtLeast(la, "0s", true)
		}
	}
	if proc != nil {
		ta.Processing = d.identifier(proc)
		if cols[ta.Processing] != nil {
			d.errorf(proc.Expr.Range(), "Processing-time column shadows a column", "Table %s already has a column %q; the processing-time column is computed by Flink and needs a name of its own.", t.Name, ta.Processing)
		}
	}
	return ta
}

// checkSourceStore checks that the producer can write table: it has a
// store in the stack's source database (see Lab.SourceStore).
func (d *decoder) checkSourceStore(ta *hcl.Attribute, table *Table, what string) {
	if table == nil {
		return
	}
	kind := d.lab.SourceStore()
	if kind == "" {
		kind = StoreMySQL // no source database: say what is usual
	}
	if table.Store(kind) == nil {
		title := Component(kind).Title
		d.errorf(ta.Expr.Range(), what+" not in "+title, "The producer writes to %s, but table %s has no %s store.", title, table.Name, kind)
	}
}
