package runner

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/kafkaread"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

// Result values are what capture, expect and wait's until see as result.
// Lists are cty tuples, so that rows may differ in the type of a column
// (a NULL in one row, a string in the next); HCL's for expressions,
// indexes and length work on them as on lists.

// goValue turns a value of query.Result (or JSON) into cty: numbers stay
// exact, SQL NULL is null.
func goValue(v any) cty.Value {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType)
	case string:
		return cty.StringVal(x)
	case bool:
		return cty.BoolVal(x)
	case int64:
		return cty.NumberIntVal(x)
	case int:
		return cty.NumberIntVal(int64(x))
	case int32:
		return cty.NumberIntVal(int64(x))
	case uint64:
		return cty.NumberUIntVal(x)
	case float64:
		return cty.NumberFloatVal(x)
	case json.Number:
		if n, err := cty.ParseNumberVal(string(x)); err == nil {
			return n
		}
		return cty.StringVal(string(x))
	case []any:
		vs := make([]cty.Value, len(x))
		for i, e := range x {
			vs[i] = goValue(e)
		}
		return cty.TupleVal(vs)
	case map[string]any:
		m := map[string]cty.Value{}
		for k, e := range x {
			m[k] = goValue(e)
		}
		return cty.ObjectVal(m)
	case time.Time:
		return cty.StringVal(x.UTC().Format(schemas.TimeLayout))
	}
	return cty.StringVal(fmt.Sprint(v))
}

// cellText shows a query value in a table cell.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return string(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// queryValue is the result of a query step:
// {columns, rows = [{col = value}], row_count, truncated, elapsed_ms}.
func queryValue(r *query.Result) cty.Value {
	cols := make([]cty.Value, len(r.Columns))
	names := uniqueNames(r.Columns)
	for i, n := range names {
		cols[i] = cty.StringVal(n)
	}
	rows := make([]cty.Value, len(r.Rows))
	for i, row := range r.Rows {
		m := map[string]cty.Value{}
		for j, n := range names {
			if j < len(row) {
				m[n] = goValue(row[j])
			} else {
				m[n] = cty.NullVal(cty.DynamicPseudoType)
			}
		}
		rows[i] = cty.ObjectVal(m)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"columns":    cty.TupleVal(cols),
		"rows":       cty.TupleVal(rows),
		"row_count":  cty.NumberIntVal(int64(len(r.Rows))),
		"truncated":  cty.BoolVal(r.Truncated),
		"elapsed_ms": cty.NumberIntVal(r.Elapsed.Milliseconds()),
	})
}

// uniqueNames names columns for row objects: a repeated name gets _2, _3.
func uniqueNames(cols []query.Column) []string {
	seen := map[string]int{}
	out := make([]string, len(cols))
	for i, c := range cols {
		n := c.Name
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s_%d", n, seen[n])
		}
		out[i] = n
	}
	return out
}

func nullableString(b []byte, isNull bool) cty.Value {
	if isNull {
		return cty.NullVal(cty.String)
	}
	return cty.StringVal(kafkaread.Text(b))
}

// kafkaValue is the result of a kafka step:
// {topic, messages = [{partition, offset, timestamp, key, value,
// tombstone}], count, matched, scanned, truncated, timed_out}.
func kafkaValue(r *kafkaread.Result) cty.Value {
	msgs := make([]cty.Value, len(r.Messages))
	for i, m := range r.Messages {
		msgs[i] = cty.ObjectVal(map[string]cty.Value{
			"partition": cty.NumberIntVal(int64(m.Partition)),
			"offset":    cty.NumberIntVal(m.Offset),
			"timestamp": cty.StringVal(kafkaTime(m.Timestamp)),
			"key":       nullableString(m.Key, m.Key == nil),
			"value":     nullableString(m.Value, m.Tombstone),
			"tombstone": cty.BoolVal(m.Tombstone),
		})
	}
	return cty.ObjectVal(map[string]cty.Value{
		"topic":     cty.StringVal(r.Topic),
		"messages":  cty.TupleVal(msgs),
		"count":     cty.NumberIntVal(int64(len(r.Messages))),
		"matched":   cty.NumberIntVal(r.Matched),
		"scanned":   cty.NumberIntVal(r.Scanned),
		"truncated": cty.BoolVal(r.Truncated),
		"timed_out": cty.BoolVal(r.TimedOut),
	})
}

func kafkaTime(t time.Time) string { return t.UTC().Format(schemas.TimeLayout) }

func timeText(t time.Time) cty.Value {
	if t.IsZero() {
		return cty.NullVal(cty.String)
	}
	return cty.StringVal(t.UTC().Format(schemas.TimeLayout))
}

// backpressureLevels are Flink's levels, least first.
var backpressureLevels = []string{"ok", "low", "high"}

// flinkValue is the result of a flink step for one job:
// {job_id, name, state, restarts, restarts_in_experiment, start_time, vertices = [{name, status, records_in,
// records_out, backpressure, busy, backpressure_level}], backpressure = {max,
// busy_max, level}, checkpoints = {completed, failed, in_progress, restored,
// latest_id, latest_time, state_size, restored_id}, exceptions = [{time, name, task, message}]}.
// base holds each job's restarts when the experiment began (by job ID):
// restarts_in_experiment is the job's restarts since, so that a restart
// left over from an earlier experiment is not counted again.
func flinkValue(st *flinkapi.Status, base map[string]int64) cty.Value {
	vs := make([]cty.Value, len(st.Vertices))
	// The job's backpressure: the highest of its vertices', null when
	// none was measured.
	bpMax, busyMax, level := cty.NullVal(cty.Number), cty.NullVal(cty.Number), cty.NullVal(cty.String)
	var top *flinkapi.Backpressure // the maxima so far
	for i, v := range st.Vertices {
		ratio, busy, lv := cty.NullVal(cty.Number), cty.NullVal(cty.Number), cty.NullVal(cty.String)
		if b := v.Backpressure; b != nil {
			ratio, busy, lv = cty.NumberFloatVal(b.Ratio), cty.NumberFloatVal(b.Busy), cty.StringVal(b.Level)
			if top == nil {
				top = &flinkapi.Backpressure{Ratio: b.Ratio, Busy: b.Busy, Level: b.Level}
			}
			top.Ratio, top.Busy = max(top.Ratio, b.Ratio), max(top.Busy, b.Busy)
			if slices.Index(backpressureLevels, b.Level) > slices.Index(backpressureLevels, top.Level) {
				top.Level = b.Level
			}
		}
		vs[i] = cty.ObjectVal(map[string]cty.Value{
			"name":               cty.StringVal(v.Name),
			"status":             cty.StringVal(v.Status),
			"records_in":         cty.NumberIntVal(v.RecordsIn),
			"records_out":        cty.NumberIntVal(v.RecordsOut),
			"backpressure":       ratio,
			"busy":               busy,
			"backpressure_level": lv,
		})
	}
	if top != nil {
		bpMax, busyMax, level = cty.NumberFloatVal(top.Ratio), cty.NumberFloatVal(top.Busy), cty.StringVal(top.Level)
	}
	ex := make([]cty.Value, len(st.Exceptions))
	for i, e := range st.Exceptions {
		ex[i] = cty.ObjectVal(map[string]cty.Value{
			"time":    timeText(e.Time),
			"name":    cty.StringVal(e.Name),
			"task":    cty.StringVal(e.Task),
			"message": cty.StringVal(e.Message),
		})
	}
	cp := st.Checkpoints
	latestID, stateSize := cty.NullVal(cty.Number), cty.NullVal(cty.Number)
	if cp.LatestID > 0 {
		latestID, stateSize = cty.NumberIntVal(cp.LatestID), cty.NumberIntVal(cp.LatestStateSize)
	}
	restoredID := cty.NullVal(cty.Number)
	if cp.RestoredID > 0 {
		restoredID = cty.NumberIntVal(cp.RestoredID)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"job_id":   cty.StringVal(st.JobID),
		"name":     cty.StringVal(st.Name),
		"state":    cty.StringVal(st.State),
		"restarts": cty.NumberIntVal(st.Restarts),
		// A job submitted since the experiment began has no base: all its
		// restarts are the experiment's.
		"restarts_in_experiment": cty.NumberIntVal(st.Restarts - base[st.JobID]),
		// When the job started (UTC, as the sources' timestamps): rows
		// written after it went through the running job, not its snapshot.
		"start_time": timeText(st.StartTime),
		"vertices":   cty.TupleVal(vs),
		"backpressure": cty.ObjectVal(map[string]cty.Value{
			"max":      bpMax,
			"busy_max": busyMax,
			"level":    level,
		}),
		"checkpoints": cty.ObjectVal(map[string]cty.Value{
			"completed":   cty.NumberIntVal(cp.Completed),
			"failed":      cty.NumberIntVal(cp.Failed),
			"in_progress": cty.NumberIntVal(cp.InProgress),
			"restored":    cty.NumberIntVal(cp.Restored),
			"latest_id":   latestID,
			"latest_time": timeText(cp.LatestTime),
			"state_size":  stateSize,
			"restored_id": restoredID,
		}),
		"exceptions": cty.TupleVal(ex),
	})
}

// Display shows a captured value in the record: strings as they are,
// numbers in full, other values as JSON.
func Display(v cty.Value) string {
	switch {
	case v == cty.NilVal:
		return ""
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "(unknown)"
	case v.Type() == cty.String:
		return v.AsString()
	case v.Type() == cty.Number:
		return numberText(v.AsBigFloat())
	case v.Type() == cty.Bool:
		return strconv.FormatBool(v.True())
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return v.GoString()
	}
	return string(b)
}

func numberText(f *big.Float) string {
	if f.IsInt() {
		i, _ := f.Int(nil)
		return i.String()
	}
	return f.Text('g', -1)
}

// oneLine squeezes text onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
