package query

import (
	"reflect"
	"testing"
	"time"
)

// The test ClickHouse (18.16) has no DateTime64, so the formatting of
// current ClickHouse's DateTime64 values is checked on its own.
func TestDateTime64Text(t *testing.T) {
	for typ, want := range map[string]int{
		"DateTime64(3)": 3, "Nullable(DateTime64(6, 'UTC'))": 6, "DateTime64(0)": 0,
		"DateTime": -1, "Date32": -1, "Nullable(String)": -1,
	} {
		if got := dateTime64Precision(typ); got != want {
			t.Errorf("dateTime64Precision(%q) = %d, want %d", typ, got, want)
		}
	}
	at := time.Date(2026, 11, 30, 10, 0, 1, 100_000_000, time.UTC)
	for p, want := range map[int]string{0: "2026-11-30 10:00:01", 3: "2026-11-30 10:00:01.100", 6: "2026-11-30 10:00:01.100000"} {
		if got := fixedTime(at, p); got != want {
			t.Errorf("fixedTime(%d) = %q, want %q", p, got, want)
		}
	}
	v := at
	if got, ok := timeOf(reflectValue(&v)); !ok || !got.Equal(at) {
		t.Errorf("timeOf(*time.Time) = %v, %v", got, ok)
	}
}

func reflectValue(p *time.Time) reflect.Value { return reflect.ValueOf(&p).Elem() }
