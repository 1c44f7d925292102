package runner

import (
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/record"
)

// TestEmptyCaptureSkipsItsUsers: as in the seed lab's experiment 03 when
// no order is pending, a capture that joins no rows is "" — found
// nothing, as null is — and every step that needs it is skipped with the
// reason instead of running `IN ()`: the query steps, the wait that
// re-runs one of them, and the wait whose until uses it.
func TestEmptyCaptureSkipsItsUsers(t *testing.T) {
	w := newWaitsRun(t)
	steps := w.run(t, "nothing_pending")
	p := steps["pending"]
	if p.Status != record.StatusError || len(p.Captures) != 1 || p.Captures[0].Error != "the value is empty" || p.Captures[0].Value != nil {
		t.Errorf("pending: %s, captures %+v", p.Status, p.Captures)
	}
	wantErr := "capture order_ids = `join(\", \", [for r in result.rows : tostring(r.order_id)])` found nothing: the value is empty; the query returned 0 rows"
	if p.Error != wantErr {
		t.Errorf("pending's error:\n got %s\nwant %s", p.Error, wantErr)
	}
	reason := "it needs step.pending.order_ids, which was not captured: step pending's capture found nothing (the value is empty; the query returned 0 rows)"
	for _, name := range []string{"serving_before", "payment", "wait_for_payment", "wait_for_order"} {
		s := steps[name]
		if s.Status != record.StatusSkipped || s.Skipped != reason || s.Ran != nil {
			t.Errorf("%s: %s %q (ran %+v), want skipped: %s", name, s.Status, s.Skipped, s.Ran, reason)
		}
	}
	for _, name := range []string{"orders", "after"} {
		if s := steps[name]; s.Status != record.StatusOK {
			t.Errorf("%s needs nothing of pending: %s %s", name, s.Status, s.Error)
		}
	}
}

// TestEmptyValue: what counts as a capture that found nothing.
func TestEmptyValue(t *testing.T) {
	for _, c := range []struct {
		v     cty.Value
		empty bool
	}{
		{cty.StringVal(""), true},
		{cty.StringVal(" \t\n"), true},
		{cty.StringVal("0"), false},
		{cty.EmptyTupleVal, true},
		{cty.ListValEmpty(cty.Number), true},
		{cty.SetValEmpty(cty.String), true},
		{cty.MapValEmpty(cty.String), true},
		{cty.EmptyObjectVal, true},
		{cty.TupleVal([]cty.Value{cty.StringVal("")}), false},
		{cty.ListVal([]cty.Value{cty.NumberIntVal(1)}), false},
		{cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String)}), false},
		{cty.NumberIntVal(0), false},
		{cty.False, false},
		{cty.StringVal("").Mark("sensitive"), true},
	} {
		if got := emptyValue(c.v); got != c.empty {
			t.Errorf("emptyValue(%#v) = %v, want %v", c.v, got, c.empty)
		}
	}
}
