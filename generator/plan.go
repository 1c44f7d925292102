package generator

import (
	"fmt"
	"math"
	"time"

	"github.com/labgen/labgen/schemas"
)

// Plan is one producer of a lab compiled for generation: the tables it
// writes, how each column's value is drawn, and its follow-ups. A Plan is
// read-only once built and may be shared.
type Plan struct {
	// Name is the producer's name in the lab.
	Name string
	// Rate is the producer's declared rate, rows per second.
	Rate  float64
	Seed  int64
	Table *Table
	// Follows are the producer's follow-up events, in declaration order.
	Follows []*FollowPlan

	fields  []*field
	byName  map[string]*field
	keyVals []*field // the parent table's key columns, in key order
	// seqKey is the parent's key field when the key is a single column
	// filled by sequence(): the run can then resume after the largest key
	// already in the table.
	seqKey *schemas.Dist
	// timeField is a parent field filled with now(), from which a resumed
	// run reads back when the earlier run's parents happened.
	timeField *field
	// combinable: every follow-up update can be applied to a parent row
	// not yet written (each has updateAt). All or none, so that the
	// updates of one row in one transaction are applied in time order.
	combinable bool
}

// Table is a table the producer writes.
type Table struct {
	// Name is the table's name in the lab; SQLName its name in the
	// source database (MySQL or PostgreSQL).
	Name, SQLName string
	// Key names the key columns.
	Key []string
	// Columns the producer fills (the fields), in field order.
	Columns []string
}

// FollowPlan is a follow-up event of a producer, such as a payment.
type FollowPlan struct {
	Name  string
	Table *Table
	// Outcomes are the outcome names, sorted; Never is the index of the
	// outcome that means "no event", or -1.
	Outcomes []string
	Never    int

	delay *numeric
	// delays, when the delay is chosen per outcome, are by outcome
	// index (nil for one not mapped, such as the never one); then delay
	// is nil.
	delays     []*numeric
	delayKey   uint64
	outcome    *weighted
	outcomeKey uint64
	fields     []*field
	// update: the parent row's columns the follow-up changes (nil if none).
	update     []*field
	updateCols []string
	// updateAt is, per update column, the parent field that fills it: the
	// update can then be applied to a parent row not yet written (see
	// batch). nil when an updated column is a key column or not one the
	// parent's INSERT fills.
	updateAt []int
	// keyField fills the follow-up table's key when it is one column.
	keyField *field
}

// field is one column's value function.
type field struct {
	col column
	fn  valueFn
}

// ectx is what a value may depend on besides its own random stream.
type ectx struct {
	index      int64 // the parent event's number (also a follow-up's)
	seq        int64 // the row's number among its table's rows (sequence)
	time       int64 // the event's time, Unix nanoseconds
	parentTime int64 // the parent event's time (follow-ups)
	outcome    int   // the follow-up's outcome
}

type valueFn func(g *rng, e *ectx) Value

// Compile builds the plans of every producer of the lab, with seed as the
// root of all randomness.
func Compile(lab *schemas.Lab, seed int64) ([]*Plan, error) {
	var plans []*Plan
	for _, p := range lab.Producers {
		pl, err := CompileProducer(lab, p, seed)
		if err != nil {
			return nil, err
		}
		plans = append(plans, pl)
	}
	return plans, nil
}

// CompileProducer builds the plan of one producer.
func CompileProducer(lab *schemas.Lab, p *schemas.Producer, seed int64) (*Plan, error) {
	c := &compiler{lab: lab, seed: seed, prod: p.Name}
	pl, err := c.producer(p)
	if err != nil {
		return nil, fmt.Errorf("producer %q: %w", p.Name, err)
	}
	return pl, nil
}

type compiler struct {
	lab  *schemas.Lab
	seed int64
	prod string
	// row are the fields compiled so far of the row being compiled,
	// which field() reads; nil for an update.
	row []*field
}

func (c *compiler) table(name string) (*schemas.Table, *Table, error) {
	t := c.lab.Table(name)
	if t == nil {
		return nil, nil, fmt.Errorf("table %q is not declared in lab.json", name)
	}
	tt := &Table{Name: t.Name, SQLName: t.Name, Key: t.Key}
	kind := c.lab.SourceStore()
	if kind == "" {
		kind = schemas.StoreMySQL
	}
	if s := t.Store(kind); s != nil && s.Name != "" {
		tt.SQLName = s.Name
	}
	return t, tt, nil
}

func (c *compiler) producer(p *schemas.Producer) (*Plan, error) {
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		return nil, fmt.Errorf("rate must be a positive number of rows per second, not %g", p.Rate)
	}
	st, tt, err := c.table(p.Table)
	if err != nil {
		return nil, err
	}
	pl := &Plan{Name: p.Name, Rate: p.Rate, Seed: c.seed, Table: tt, byName: map[string]*field{}}
	for _, f := range p.Fields {
		c.row = pl.fields
		fd, err := c.field(f, st, []string{p.Name, "field", f.Name}, nil, nil)
		if err != nil {
			return nil, err
		}
		pl.fields = append(pl.fields, fd)
		pl.byName[f.Name] = fd
		tt.Columns = append(tt.Columns, f.Name)
		if f.Dist != nil && f.Dist.Kind == schemas.DistNow && f.Dist.Offset == 0 && pl.timeField == nil {
			pl.timeField = fd
		}
	}
	for _, k := range st.Key {
		fd := pl.byName[k]
		if fd == nil {
			return nil, fmt.Errorf("key column %q of table %s has no field", k, st.Name)
		}
		pl.keyVals = append(pl.keyVals, fd)
	}
	if len(st.Key) == 1 {
		for _, f := range p.Fields {
			if f.Name == st.Key[0] && f.Dist != nil && f.Dist.Kind == schemas.DistSequence {
				pl.seqKey = f.Dist
			}
		}
	}
	for _, f := range p.Follows {
		fp, err := c.follow(f, pl, st)
		if err != nil {
			return nil, fmt.Errorf("follow %q: %w", f.Name, err)
		}
		pl.Follows = append(pl.Follows, fp)
	}
	if len(pl.Follows) > 1<<15 {
		return nil, fmt.Errorf("too many follow-ups")
	}
	for _, f := range pl.Follows {
		if f.update != nil {
			pl.combinable = true
		}
	}
	for _, f := range pl.Follows {
		if f.update != nil && f.updateAt == nil {
			pl.combinable = false
		}
	}
	return pl, nil
}

func (c *compiler) follow(f *schemas.Follow, pl *Plan, parent *schemas.Table) (*FollowPlan, error) {
	st, tt, err := c.table(f.Table)
	if err != nil {
		return nil, err
	}
	fp := &FollowPlan{Name: f.Name, Table: tt, Never: -1}
	if f.Delay == nil {
		return nil, fmt.Errorf("no delay")
	}
	if f.Delay.Kind != schemas.DistOutcomeMap {
		if fp.delay, err = newNumeric(f.Delay); err != nil {
			return nil, fmt.Errorf("delay: %w", err)
		}
	}
	fp.delayKey = streamKey(c.seed, pl.Name, "follow", f.Name, "delay")
	if f.Outcome == nil {
		return nil, fmt.Errorf("no outcome")
	}
	if fp.outcome, err = newWeighted(f.Outcome); err != nil {
		return nil, fmt.Errorf("outcome: %w", err)
	}
	if len(fp.outcome.values) > 1<<15 {
		return nil, fmt.Errorf("too many outcomes")
	}
	fp.outcomeKey = streamKey(c.seed, pl.Name, "follow", f.Name, "outcome")
	fp.Outcomes = fp.outcome.values
	if f.Delay.Kind == schemas.DistOutcomeMap {
		// A delay per outcome, drawn from the same stream as one delay.
		fp.delays = make([]*numeric, len(fp.Outcomes))
		for i, o := range fp.Outcomes {
			for _, m := range f.Delay.Map {
				if m.Outcome != o || m.Dist == nil {
					continue
				}
				if fp.delays[i], err = newNumeric(m.Dist); err != nil {
					return nil, fmt.Errorf("delay of %s: %w", o, err)
				}
			}
		}
	}
	if f.Never != "" {
		for i, o := range fp.Outcomes {
			if o == f.Never {
				fp.Never = i
			}
		}
		if fp.Never < 0 {
			return nil, fmt.Errorf("never names %q, which is not an outcome", f.Never)
		}
	}
	for i, n := range fp.delays {
		if n == nil && i != fp.Never {
			return nil, fmt.Errorf("the delay has no value for the outcome %q", fp.Outcomes[i])
		}
	}
	for _, fd := range f.Fields {
		c.row = fp.fields
		x, err := c.field(fd, st, []string{pl.Name, "follow", f.Name, "field", fd.Name}, pl, fp)
		if err != nil {
			return nil, err
		}
		fp.fields = append(fp.fields, x)
		tt.Columns = append(tt.Columns, fd.Name)
		if len(st.Key) == 1 && st.Key[0] == fd.Name {
			fp.keyField = x
		}
	}
	c.row = nil
	for _, fd := range f.Update {
		x, err := c.field(fd, parent, []string{pl.Name, "follow", f.Name, "update", fd.Name}, pl, fp)
		if err != nil {
			return nil, fmt.Errorf("update: %w", err)
		}
		fp.update = append(fp.update, x)
		fp.updateCols = append(fp.updateCols, fd.Name)
	}
	if fp.update != nil && len(parent.Key) == 0 {
		return nil, fmt.Errorf("updates table %s, which has no key to find the row by", parent.Name)
	}
	fp.updateAt = updateAt(pl, parent, fp.updateCols)
	if f.UpdateTable != "" && f.UpdateTable != parent.Name {
		return nil, fmt.Errorf("updates table %q, but a follow-up can only update its parent's table %s", f.UpdateTable, parent.Name)
	}
	return fp, nil
}

// updateAt finds the parent field of each updated column; nil if one is
// a key column or has no field.
func updateAt(pl *Plan, parent *schemas.Table, cols []string) []int {
	if len(cols) == 0 {
		return nil
	}
	at := make([]int, len(cols))
	for j, c := range cols {
		for _, k := range parent.Key {
			if k == c {
				return nil
			}
		}
		at[j] = -1
		for i, fd := range pl.fields {
			if fd.col.name == c {
				at[j] = i
			}
		}
		if at[j] < 0 {
			return nil
		}
	}
	return at
}

// field compiles one field. pl and fp are set for a follow-up's fields and
// updates, where parent() and the outcome are available.
func (c *compiler) field(f *schemas.Field, t *schemas.Table, stream []string, pl *Plan, fp *FollowPlan) (*field, error) {
	col := t.Column(f.Name)
	if col == nil {
		return nil, fmt.Errorf("table %s has no column %q", t.Name, f.Name)
	}
	fd := &field{col: column{name: f.Name, typ: col.Type, round: -1}}
	if f.Round != nil {
		if *f.Round < 0 || *f.Round > schemas.MaxRound {
			return nil, fmt.Errorf("field %q: round %d is out of range", f.Name, *f.Round)
		}
		fd.col.round = *f.Round
	}
	if f.Dist == nil {
		return nil, fmt.Errorf("field %q has no value", f.Name)
	}
	fn, err := c.dist(f.Dist, streamKey(c.seed, stream...), pl, fp)
	if err != nil {
		return nil, fmt.Errorf("field %q: %w", f.Name, err)
	}
	if f.Round != nil {
		p := math.Pow(10, float64(*f.Round))
		inner := fn
		fn = func(g *rng, e *ectx) Value {
			v := inner(g, e)
			if v.k == kFloat {
				v.f = math.Round(v.f*p) / p
			}
			return v
		}
	}
	fd.fn = fn
	return fd, nil
}

func (c *compiler) dist(d *schemas.Dist, key uint64, pl *Plan, fp *FollowPlan) (valueFn, error) {
	switch d.Kind {
	case schemas.DistConstant:
		v, err := constValue(d.Value)
		if err != nil {
			return nil, err
		}
		return func(*rng, *ectx) Value { return v }, nil
	case schemas.DistUniform, schemas.DistNormal, schemas.DistLogNormal, schemas.DistExponential:
		n, err := newNumeric(d)
		if err != nil {
			return nil, err
		}
		return func(g *rng, e *ectx) Value { return floatV(n.sample(g.at(key, e.index))) }, nil
	case schemas.DistUniformInt:
		n, err := newNumeric(d)
		if err != nil {
			return nil, err
		}
		return func(g *rng, e *ectx) Value { return intV(int64(n.sample(g.at(key, e.index)))) }, nil
	case schemas.DistWeighted:
		w, err := newWeighted(d)
		if err != nil {
			return nil, err
		}
		return func(g *rng, e *ectx) Value { return stringV(w.values[w.index(g.at(key, e.index))]) }, nil
	case schemas.DistSequence:
		start, step := d.Start, d.Step
		if step <= 0 {
			return nil, fmt.Errorf("sequence step must be positive, not %d", step)
		}
		return func(_ *rng, e *ectx) Value { return intV(start + e.seq*step) }, nil
	case schemas.DistNow:
		off := int64(d.Offset)
		return func(_ *rng, e *ectx) Value { return timeV(e.time + off) }, nil
	case schemas.DistField:
		var from *field
		for _, f := range c.row {
			if f.col.name == d.Field {
				from = f
			}
		}
		if from == nil {
			return nil, fmt.Errorf("field(%q): no such field declared above", d.Field)
		}
		return shifted(from.fn, d.Offset), nil
	case schemas.DistParent:
		if pl == nil {
			return nil, fmt.Errorf("parent() is only available in a follow-up")
		}
		pf := pl.byName[d.Field]
		if pf == nil {
			if pl.Table != nil && !c.hasColumn(pl.Table.Name, d.Field) {
				return nil, fmt.Errorf("parent(%q): the parent table has no such column", d.Field)
			}
			// A nullable parent column that the producer leaves NULL.
			return func(*rng, *ectx) Value { return nullV() }, nil
		}
		return shifted(func(g *rng, e *ectx) Value {
			pe := ectx{index: e.index, seq: e.index, time: e.parentTime, parentTime: e.parentTime}
			return pf.fn(g, &pe)
		}, d.Offset), nil
	case schemas.DistOutcome:
		if fp == nil {
			return nil, fmt.Errorf("outcome() is only available in a follow-up")
		}
		outcomes := fp.Outcomes
		return func(_ *rng, e *ectx) Value { return stringV(outcomes[e.outcome]) }, nil
	case schemas.DistOutcomeMap:
		if fp == nil {
			return nil, fmt.Errorf("outcome_map() is only available in a follow-up")
		}
		fns := make([]valueFn, len(fp.Outcomes))
		for i, o := range fp.Outcomes {
			fns[i] = func(*rng, *ectx) Value { return nullV() }
			for _, m := range d.Map {
				if m.Outcome != o {
					continue
				}
				if m.Dist != nil {
					fn, err := c.dist(m.Dist, key, pl, fp)
					if err != nil {
						return nil, fmt.Errorf("outcome_map %s: %w", o, err)
					}
					fns[i] = fn
					continue
				}
				v, err := constValue(m.Value)
				if err != nil {
					return nil, fmt.Errorf("outcome_map %s: %w", o, err)
				}
				fns[i] = func(*rng, *ectx) Value { return v }
			}
		}
		return func(g *rng, e *ectx) Value { return fns[e.outcome](g, e) }, nil
	}
	return nil, fmt.Errorf("unknown distribution %q", d.Kind)
}

// shifted adds offset to the times fn gives (parent("c") + duration(…),
// field("c") + …); other values pass unchanged.
func shifted(fn valueFn, offset time.Duration) valueFn {
	if offset == 0 {
		return fn
	}
	off := int64(offset)
	return func(g *rng, e *ectx) Value {
		v := fn(g, e)
		if v.k == kTime {
			v.i += off
		}
		return v
	}
}

func (c *compiler) hasColumn(table, col string) bool {
	t := c.lab.Table(table)
	return t != nil && t.Column(col) != nil
}
