package record

import "testing"

func TestIdentifierNames(t *testing.T) {
	for name, want := range map[string]bool{
		"id": true, "order_id": true, "order_ids": true, "Payment ID": true, "key": true, "message_key": true,
		"rows / order_id": true, "records_out / vertex 1": false,
		"rows": false, "checkpoints": false, "paid": false, "status": false, "ms": false, "restored": false, "idle": false,
	} {
		if got := IsIdentifierName(name); got != want {
			t.Errorf("IsIdentifierName(%q) = %v, want %v", name, got, want)
		}
	}
}

// A capture or series is an identifier by its name, the column its
// expression reads, or its values being a key column's.
func TestIdentifierValues(t *testing.T) {
	s := &Step{Output: &Output{Tables: []Table{
		{Columns: []string{"order_id", "amount"}, Rows: [][]string{{"489", "56.15"}, {"490", "12"}}},
		{Columns: []string{"key", "value"}, Rows: [][]string{{`{"payment_id":77}`, `{}`}}},
	}}}
	for _, c := range []struct {
		c    Capture
		want bool
	}{
		{Capture{Name: "order_id", Expr: "result.rows[0].order_id", Display: "489"}, true},
		{Capture{Name: "followed", Expr: "result.rows[0].order_id", Display: "489"}, true},
		{Capture{Name: "followed", Expr: `join(", ", [for r in result.rows : tostring(r.order_id)])`, Display: "489, 490"}, true},
		{Capture{Name: "picked", Expr: "step.x.y", Display: "490"}, true},
		{Capture{Name: "paid", Expr: "step.x.y", Display: "77"}, true},
		{Capture{Name: "amount", Expr: "result.rows[0].amount", Display: "56.15"}, false},
		{Capture{Name: "n", Expr: "length(result.rows)", Display: "2"}, false},
	} {
		if got := s.IdentifierCapture(c.c); got != c.want {
			t.Errorf("IdentifierCapture(%s = %s) = %v, want %v", c.c.Name, c.c.Expr, got, c.want)
		}
	}
	num := func(f float64) *float64 { return &f }
	if !s.IdentifierSeries(Series{Name: "followed", Points: []Point{{Num: num(489)}, {Num: num(490)}}}) {
		t.Error("a series of the key column's values is not an identifier")
	}
	if s.IdentifierSeries(Series{Name: "amount", Points: []Point{{Num: num(12)}, {Num: num(489)}}}) {
		t.Error("a series with a value no key has is an identifier")
	}
}
