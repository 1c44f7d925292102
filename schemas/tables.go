package schemas

import (
	"encoding/json"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

var tableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "key", Required: true}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "column", LabelNames: []string{"name"}},
		{Type: "store", LabelNames: []string{"kind"}},
	},
}

var columnSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type", Required: true}, {Name: "nullable"}, {Name: "description"}},
}

var storeSchemas = map[string]*hcl.BodySchema{
	StoreMySQL:      {Attributes: []hcl.AttributeSchema{{Name: "name"}}},
	StoreKafka:      {Attributes: []hcl.AttributeSchema{{Name: "topic"}, {Name: "partitions"}}},
	StoreClickHouse: {Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "version"}, {Name: "ingest"}}},
	StoreFluss:      {Attributes: []hcl.AttributeSchema{{Name: "name"}}},
	StoreIceberg:    {Attributes: []hcl.AttributeSchema{{Name: "name"}}},
}

var storeKinds = []string{StoreMySQL, StoreKafka, StoreClickHouse, StoreFluss, StoreIceberg}

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
	var stores []*hcl.Block
	for _, cb := range content.Blocks {
		if cb.Type == "store" {
			stores = append(stores, cb)
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
				d.errorf(ka.Expr.Range(), "Unknown key column", "Table %s has no column %q to use as its key.", name, k)
			case c.Nullable:
				d.errorf(ka.Expr.Range(), "Nullable key column", "Key column %q of table %s is nullable; key columns must not be.", k, name)
			}
		}
	}

	seen := map[string]hcl.Range{}
	for _, sb := range stores {
		kind := sb.Labels[0]
		schema, ok := storeSchemas[kind]
		if !ok {
			d.errorf(sb.LabelRanges[0], "Unknown store", "A table can be stored in %s, not %q.", quoteList(storeKinds), kind)
			continue
		}
		if prev, dup := seen[kind]; dup {
			d.errorf(sb.LabelRanges[0], "Duplicate store", "Table %s already has a %s store at %s.", name, kind, prev)
			continue
		}
		seen[kind] = sb.DefRange
		sc, diags := sb.Body.Content(schema)
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
		switch kind {
		case StoreMySQL:
			s.Database = d.lab.Stack.MySQL.Database
		case StoreKafka:
			s.Name = d.topic(sc.Attributes["topic"], name)
			s.Partitions = d.atLeast(sc.Attributes["partitions"], 1, 1)
		case StoreClickHouse:
			s.Database = d.lab.Stack.ClickHouse.Database
			if va := sc.Attributes["version"]; va != nil {
				s.Version = d.str(va)
				c, ok := cols[s.Version]
				switch {
				case !ok:
					d.errorf(va.Expr.Range(), "Unknown version column", "Table %s has no column %q to use as the ReplacingMergeTree version.", name, s.Version)
				case c.Type.Kind != "" && !(c.Type.IsInteger() || c.Type.Kind == TypeTimestamp || c.Type.Kind == TypeDate):
					d.errorf(va.Expr.Range(), "Invalid version column", "The version column must be an integer, date or timestamp; %q is %s.", s.Version, c.Type)
				}
			}
			s.Ingest = d.oneOf(sc.Attributes["ingest"], "", StoreKafka, "none")
			if s.Ingest == "none" {
				s.Ingest = ""
			}
		case StoreFluss:
			s.Database = d.lab.Stack.Fluss.Database
		case StoreIceberg:
			s.Database = d.lab.Stack.Iceberg.Database
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
	if table != nil && table.Store(StoreMySQL) == nil {
		d.errorf(ta.Expr.Range(), "Producer table not in MySQL", "The producer writes to MySQL, but table %s has no mysql store.", table.Name)
	}

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
		d.errorf(expr.Range(), "Reference to undeclared table", "No table named %q is declared in this lab.", name)
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
	if table != nil && table.Store(StoreMySQL) == nil {
		d.errorf(ta.Expr.Range(), "Follow-up table not in MySQL", "The producer writes to MySQL, but table %s has no mysql store.", table.Name)
	}

	da := content.Attributes["delay"]
	f.Delay = d.dist(da)
	if f.Delay != nil && !delayKinds[f.Delay.Kind] {
		d.errorf(da.Expr.Range(), "Invalid delay", "A delay is a number of seconds, a duration, or a numeric distribution such as exponential(\"45s\"); %s is not.", f.Delay.Kind)
	}
	if f.Delay != nil && f.Delay.Kind == DistConstant {
		switch n := f.Delay.Value.(type) {
		case string:
			// A constant delay written as a duration string.
			v, err := number(cty.StringVal(n))
			if err != nil {
				d.errorf(da.Expr.Range(), "Invalid delay", "%s.", err)
			} else if v < 0 {
				d.errorf(da.Expr.Range(), "Invalid delay", "A delay cannot be negative; %q is.", n)
			}
			f.Delay.Value = v
		case json.Number:
			if v, err := n.Float64(); err != nil || v < 0 {
				d.errorf(da.Expr.Range(), "Invalid delay", "A delay is a number of seconds, zero or more; %s is not.", n)
			}
		default:
			d.errorf(da.Expr.Range(), "Invalid delay", "A delay is a number of seconds or a duration such as \"45s\", not true, false or null.")
		}
	}
	if f.Delay != nil && f.Delay.Min != nil && *f.Delay.Min < 0 {
		d.errorf(da.Expr.Range(), "Invalid delay", "A delay cannot be negative, but this %s can be as small as %g.", f.Delay.Kind, *f.Delay.Min)
	}
	oa := content.Attributes["outcome"]
	f.Outcome = d.dist(oa)
	if f.Outcome != nil && f.Outcome.Kind != DistWeighted {
		d.errorf(oa.Expr.Range(), "Invalid outcome", "The outcome is a weighted choice, as in weighted({ PAID = 80, FAILED = 15, NONE = 5 }).")
		f.Outcome = nil
	}
	if na := content.Attributes["never"]; na != nil {
		f.Never = d.str(na)
		if f.Outcome != nil && !f.Outcome.hasChoice(f.Never) {
			d.errorf(na.Expr.Range(), "Unknown outcome", "never names %q, which is not one of the outcomes.", f.Never)
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
		fd := &Field{Name: a.Name, DeclRange: a.Range, Dist: d.dist(a)}
		if parent != nil {
			col := parent.Column(a.Name)
			if col == nil {
				d.errorf(a.NameRange, "Unknown column", "Table %s has no column %q to update.", parent.Name, a.Name)
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
		fd := &Field{Name: name, DeclRange: fb.DefRange, Dist: d.dist(fc.Attributes["value"])}
		if ra := fc.Attributes["round"]; ra != nil {
			r := d.atLeast(ra, 0, 0)
			fd.Round = &r
		}
		if table != nil {
			col := table.Column(name)
			if col == nil {
				d.errorf(fb.LabelRanges[0], "Unknown column", "Table %s has no column %q.", table.Name, name)
				continue
			}
			var parent *Table
			if follow != nil {
				parent = d.lab.Table(d.currentParent)
			}
			d.checkDist(fc.Attributes["value"].Expr.Range(), fd.Dist, col, parent, follow, false)
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

// dist evaluates a field value: a distribution call or a constant.
func (d *decoder) dist(a *hcl.Attribute) *Dist {
	if a == nil {
		return nil
	}
	v, diags := a.Expr.Value(d.ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
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
		d.errorf(a.Expr.Range(), "Invalid value", "A field value is a constant or a distribution such as uniform(1, 10): %s.", err)
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
	case DistUniformInt, DistSequence:
		if !t.IsNumeric() && t.Kind != TypeString {
			bad("%s gives whole numbers.", x.Kind)
		}
	case DistWeighted:
		if t.Kind != TypeString && !t.IsNumeric() {
			bad("weighted gives the chosen keys, which fit string and number columns.")
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
			d.errorf(rng, "Unknown parent column", "The parent table %s has no column %q.", parent.Name, x.Field)
		}
	case DistOutcome, DistOutcomeMap:
		if follow == nil {
			d.errorf(rng, x.Kind+"() outside a follow-up", "%s() takes the follow-up's outcome; the producer's own rows have none.", x.Kind)
			return
		}
		if x.Kind == DistOutcome && t.Kind != TypeString {
			bad("outcome() gives the outcome's name, a string.")
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
