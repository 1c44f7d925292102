package generator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/schemas"
)

func sampleLines(t *testing.T, plans []*Plan, start time.Time, n int) []byte {
	t.Helper()
	var streams []*Stream
	for _, p := range plans {
		streams = append(streams, NewStream(p, StreamConfig{Start: start}))
	}
	var b bytes.Buffer
	must(t, Sample(&b, streams, n))
	return b.Bytes()
}

func TestSampleDeterministic(t *testing.T) {
	lab := loadLab(t)
	a := sampleLines(t, compile(t, lab, 7), epoch, 2000)
	b := sampleLines(t, compile(t, loadLab(t), 7), epoch, 2000)
	if !bytes.Equal(a, b) {
		t.Fatal("two samples with the same seed differ")
	}
	if c := sampleLines(t, compile(t, lab, 8), epoch, 2000); bytes.Equal(a, c) {
		t.Fatal("samples with seeds 7 and 8 are the same")
	}
	lines := strings.Split(strings.TrimSuffix(string(a), "\n"), "\n")
	if len(lines) != 2000 {
		t.Fatalf("%d lines, want 2000", len(lines))
	}
	kinds := map[string]int{}
	for _, l := range lines {
		var ev struct {
			Time    string          `json:"time"`
			Event   string          `json:"event"`
			Outcome string          `json:"outcome"`
			Row     map[string]any  `json:"row"`
			Update  json.RawMessage `json:"update"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not JSON: %s: %v", l, err)
		}
		kinds[ev.Event+" "+ev.Outcome]++
		if ev.Event == "payment" && ev.Update == nil {
			t.Errorf("a payment without its update of the order: %s", l)
		}
	}
	if kinds["shop "] == 0 || kinds["payment PAID"] == 0 || kinds["payment FAILED"] == 0 || kinds["payment NONE"] != 0 {
		t.Errorf("events by kind: %v", kinds)
	}
}

// TestStreamOrder checks the shape of the event stream: events in time
// order, parents on their schedule, follow-ups after their parent by their
// delay, follow-up numbers dense and unique.
func TestStreamOrder(t *testing.T) {
	lab := loadLab(t)
	p := compile(t, lab, lab.Seed)[0]
	s := NewStream(p, StreamConfig{Start: epoch, Count: 20_000})
	var last int64
	seen := map[int64]bool{}
	parentAt := map[int64]int64{}
	followed := map[int64]bool{}
	n := 0
	for {
		ev, ok := s.Next()
		if !ok {
			break
		}
		n++
		if ev.Time < last {
			t.Fatalf("event %d at %d comes after one at %d", n, ev.Time, last)
		}
		last = ev.Time
		if ev.Follow < 0 {
			want := epoch.UnixNano() + ev.Index*int64(time.Second)/5
			if ev.Time != want {
				t.Fatalf("parent %d at %d, want %d (5 a second)", ev.Index, ev.Time, want)
			}
			parentAt[ev.Index] = ev.Time
			continue
		}
		pt, ok := parentAt[ev.Index]
		if !ok {
			t.Fatalf("follow-up of parent %d before the parent", ev.Index)
		}
		if ev.ParentTime != pt || ev.Time-pt != p.Follows[0].delayNs(newRNG(), ev.Index, ev.Outcome) {
			t.Fatalf("follow-up of parent %d at %d: parent at %d, delay not its own", ev.Index, ev.Time, pt)
		}
		if seen[ev.Seq] || followed[ev.Index] {
			t.Fatalf("follow-up number %d (parent %d) twice", ev.Seq, ev.Index)
		}
		seen[ev.Seq], followed[ev.Index] = true, true
	}
	if len(parentAt) != 20_000 {
		t.Fatalf("%d parents, want 20000", len(parentAt))
	}
	for i := range int64(len(seen)) {
		if !seen[i] {
			t.Fatalf("follow-up numbers are not dense: %d missing of %d", i, len(seen))
		}
	}
	if s.Pending() != 0 {
		t.Fatalf("%d follow-ups left pending after the stream ended", s.Pending())
	}
}

// TestResumedStream checks that a stream started at parent N (a run that
// resumes after N rows) produces exactly the events of the full stream
// from parent N on.
func TestResumedStream(t *testing.T) {
	lab := loadLab(t)
	p := compile(t, lab, lab.Seed)[0]
	const first, count = 1234, 3000
	full := NewStream(p, StreamConfig{Start: epoch, Count: first + count})
	rate := 5.0
	resumed := NewStream(p, StreamConfig{Start: epoch.Add(time.Duration(first / rate * 1e9)), First: first, Count: count})
	var want []string
	for {
		ev, ok := full.Next()
		if !ok {
			break
		}
		if ev.Index >= first {
			want = append(want, string(full.appendJSONEvent(nil, &ev)))
		}
	}
	var got []string
	for {
		ev, ok := resumed.Next()
		if !ok {
			break
		}
		got = append(got, string(resumed.appendJSONEvent(nil, &ev)))
	}
	if len(got) != len(want) {
		t.Fatalf("resumed stream has %d events, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d differs:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}

// TestAddingFieldKeepsOthers: a field's values come from its own stream,
// keyed by its name, so adding a field (before the others) and dropping
// one leave the remaining fields' values unchanged.
func TestAddingFieldKeepsOthers(t *testing.T) {
	lab := loadLab(t)
	before := compile(t, lab, 3)[0]

	lab2 := loadLab(t)
	orders := lab2.Table("orders")
	orders.Columns = append(orders.Columns, &schemas.Column{Name: "coupon", Type: schemas.LogicalType{Kind: schemas.TypeString, Length: 8}, Nullable: true})
	prod := lab2.Producers[0]
	extra := &schemas.Field{Name: "coupon", Dist: &schemas.Dist{Kind: schemas.DistWeighted, Choices: []schemas.Choice{{Value: "A", Weight: 1}, {Value: "B", Weight: 1}}}}
	var fields []*schemas.Field
	fields = append(fields, extra)
	for _, f := range prod.Fields {
		if f.Name != "customer_id" {
			fields = append(fields, f)
		}
	}
	prod.Fields = fields
	after := compile(t, lab2, 3)[0]

	for _, name := range []string{"category", "order_amount"} {
		a, b := fieldValues(t, before, name, 1000), fieldValues(t, after, name, 1000)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s of order %d changed from %v to %v when a field was added and another removed", name, i, a[i].Go(), b[i].Go())
			}
		}
	}
	// The outcomes and delays of the follow-ups are unchanged too.
	_, fa := followUps(t, before, 2000)
	_, fb := followUps(t, after, 2000)
	if len(fa) != len(fb) {
		t.Fatalf("%d follow-ups before, %d after", len(fa), len(fb))
	}
	for i := range fa {
		if fa[i] != fb[i] {
			t.Fatalf("follow-up %d changed: %+v → %+v", i, fa[i], fb[i])
		}
	}
}

// TestNeverMeansNoEvent: with every weight on NONE, no follow-up happens;
// without a never outcome, every parent has one.
func TestNeverMeansNoEvent(t *testing.T) {
	lab := loadLab(t, `payment_outcomes={ PAID = 0, FAILED = 0, NONE = 1 }`)
	p := compile(t, lab, 1)[0]
	if parents, fus := followUps(t, p, 5000); parents != 5000 || len(fus) != 0 {
		t.Fatalf("%d parents, %d follow-ups; want 5000 and none", parents, len(fus))
	}
	lab = loadLab(t, `payment_outcomes={ PAID = 1, FAILED = 1, NONE = 0 }`)
	p = compile(t, lab, 1)[0]
	if parents, fus := followUps(t, p, 5000); parents != 5000 || len(fus) != 5000 {
		t.Fatalf("%d parents, %d follow-ups; want 5000 of each", parents, len(fus))
	}
}

// TestSQLValues checks how values are spelt in SQL and JSON.
func TestSQLValues(t *testing.T) {
	str := column{name: "s", typ: schemas.LogicalType{Kind: schemas.TypeString, Length: 32}, round: -1}
	dec := column{name: "d", typ: schemas.LogicalType{Kind: schemas.TypeDecimal, Precision: 12, Scale: 2}, round: -1}
	ts := column{name: "t", typ: schemas.LogicalType{Kind: schemas.TypeTimestamp, Precision: 3}, round: -1}
	big := column{name: "b", typ: schemas.LogicalType{Kind: schemas.TypeBigInt}, round: -1}
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.UTC).UnixNano()
	cases := []struct {
		c         column
		v         Value
		sql, json string
	}{
		{str, stringV("PAID"), `'PAID'`, `"PAID"`},
		{str, stringV("O'Brien\\"), `_utf8mb4 X'4F27427269656E5C'`, `"O'Brien\\"`},
		{str, stringV("café"), `_utf8mb4 X'636166C3A9'`, `"café"`},
		{str, intV(42), `'42'`, `"42"`},
		{dec, floatV(57.3), `57.30`, `57.30`},
		{dec, intV(7), `7`, `7`},
		{dec, stringV("12.5"), `12.5`, `12.5`},
		{dec, stringV("007"), `'007'`, `"007"`},
		{big, floatV(2.6), `3`, `3`},
		{ts, timeV(at), `'2026-03-04 05:06:07.891'`, `"2026-03-04 05:06:07.891"`},
		{ts, nullV(), `NULL`, `null`},
	}
	for _, c := range cases {
		if got := string(appendSQL(nil, &c.c, c.v)); got != c.sql {
			t.Errorf("SQL of %v in %s: %s, want %s", c.v.Go(), c.c.typ, got, c.sql)
		}
		if got := string(appendJSON(nil, &c.c, c.v)); got != c.json {
			t.Errorf("JSON of %v in %s: %s, want %s", c.v.Go(), c.c.typ, got, c.json)
		}
	}
}

// scanLines splits JSON lines.
func scanLines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// twoProducers is the seed lab with a second producer, "kiosk", writing
// copies of the orders and payments tables at 2 a second.
func twoProducers(t *testing.T) *schemas.Lab {
	t.Helper()
	lab := loadLab(t)
	b, err := schemas.MarshalLab(lab)
	must(t, err)
	var cp schemas.Lab
	must(t, json.Unmarshal(b, &cp))
	for _, name := range []string{"orders", "payments"} {
		tb := *cp.Table(name)
		tb.Name = "kiosk_" + name
		tb.Stores = []*schemas.Store{{Kind: schemas.StoreMySQL, Database: "shop", Name: tb.Name}}
		lab.Tables = append(lab.Tables, &tb)
	}
	p := cp.Producers[0]
	p.Name, p.Table, p.Rate = "kiosk", "kiosk_orders", 2
	p.Follows[0].Table, p.Follows[0].UpdateTable = "kiosk_payments", "kiosk_orders"
	lab.Producers = append(lab.Producers, p)
	return roundTrip(t, lab)
}

func TestTwoProducersSample(t *testing.T) {
	lab := twoProducers(t)
	plans := compile(t, lab, 1)
	out := sampleLines(t, plans, epoch, 3000)
	var last string
	tables := map[string]int{}
	for _, l := range scanLines(out) {
		var ev struct{ Time, Table string }
		must(t, json.Unmarshal([]byte(l), &ev))
		if ev.Time < last {
			t.Fatalf("%s comes after %s", ev.Time, last)
		}
		last = ev.Time
		tables[ev.Table]++
	}
	// 5 and 2 orders a second.
	if o, k := tables["orders"], tables["kiosk_orders"]; k == 0 || tables["kiosk_payments"] == 0 || float64(o)/float64(k) < 2.3 || float64(o)/float64(k) > 2.7 {
		t.Errorf("rows by table: %v", tables)
	}
	// Each producer's events are its own: the seed producer's lines are
	// the same as without the second producer.
	alone := sampleLines(t, compile(t, loadLab(t), 1), epoch, 3000)
	var mine []string
	for _, l := range scanLines(out) {
		if !strings.Contains(l, `"table":"kiosk_`) {
			mine = append(mine, l)
		}
	}
	for i, l := range scanLines(alone)[:len(mine)] {
		if l != mine[i] {
			t.Fatalf("line %d of the seed producer changed with a second producer:\n%s\n%s", i, l, mine[i])
		}
	}
}

// TestCompileErrors: a hand-edited lab.json gets an error naming the
// producer and field, not a panic.
func TestCompileErrors(t *testing.T) {
	cases := []struct {
		edit func(*schemas.Lab)
		want string
	}{
		{func(l *schemas.Lab) { l.Producers[0].Fields[2].Dist.Kind = "zipf" }, `producer "shop": field "category": unknown distribution "zipf"`},
		{func(l *schemas.Lab) { l.Producers[0].Fields[2].Dist.Choices = nil }, `field "category": weighted has no choices`},
		{func(l *schemas.Lab) { l.Producers[0].Rate = 0 }, "rate must be a positive number"},
		{func(l *schemas.Lab) { l.Producers[0].Table = "nope" }, `table "nope" is not declared`},
		{func(l *schemas.Lab) { l.Producers[0].Fields[0].Name = "nope" }, `table orders has no column "nope"`},
		{func(l *schemas.Lab) { l.Producers[0].Follows[0].Never = "MAYBE" }, `never names "MAYBE"`},
		{func(l *schemas.Lab) { l.Producers[0].Follows[0].Delay = &schemas.Dist{Kind: schemas.DistWeighted} }, "delay: weighted is not a numeric distribution"},
		{func(l *schemas.Lab) { l.Producers[0].Fields[1].Dist.Max = nil }, "uniform_int needs a min and a max"},
		{func(l *schemas.Lab) { l.Table("orders").Key = nil }, "updates table orders, which has no key"},
	}
	for _, c := range cases {
		lab := loadLab(t)
		c.edit(lab)
		_, err := Compile(lab, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
