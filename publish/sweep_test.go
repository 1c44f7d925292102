package publish

import (
	"regexp"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

// sweptRecord is the sampled record with a measure and a compare step of
// exponential delays of the given mean.
func sweptRecord(t *testing.T, lag float64, mean float64) *record.Record {
	r := load(t, "sampled")
	r.Experiments[0].Measures = []record.Measure{{Name: "lag", Title: "payment → ClickHouse", Unit: "s", Value: &lag}}
	var values []float64
	for i := 1; i <= 50; i++ {
		values = append(values, mean*float64(i)/25)
	}
	var bins []record.Bin
	for lo := 0.0; lo < 4*mean; lo += mean / 2 {
		bins = append(bins, record.Bin{Lo: lo, Hi: lo + mean/2, Observed: 3, Declared: 6 / (1 + lo)})
	}
	r.Experiments[0].Steps[0].Compare = &record.Compare{Of: "producer.shop.follow.payment.delay", Declared: "exponential", Column: "delay_s", Unit: "s", Values: values, Bins: bins}
	return r
}

// The sweep's page: each measure per variant (median, not the mean: 3 of
// 2, 10 and 3; and least and greatest over repeats), a chart of it against the swept variable (at
// its durations in seconds), and the variants' distributions overlaid.
func TestSweepPage(t *testing.T) {
	vs := []SweepVariant{
		{Name: "payment_delay-5s", Values: []string{"5s"}, Records: []*record.Record{sweptRecord(t, 2, 5), sweptRecord(t, 10, 5), sweptRecord(t, 3, 5)}, Pages: []string{"a-1.html", "a-2.html", "a-3.html"}},
		{Name: "payment_delay-45s", Values: []string{"45s"}, Records: []*record.Record{sweptRecord(t, 9, 45)}, Pages: []string{"b.html"}, Failed: 1},
	}
	b, err := Sweep([]string{"payment_delay"}, vs, "compare.html", true)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"payment → ClickHouse", "3.00 s (2.00–10.0 s, 3 runs)", "9.00 s",
		"1 run(s) failed without a record", `href="compare.html"`, `href="a-2.html"`,
		"payment_delay (s)", "observed and declared, per variant", "06 worker_recovery: lag",
		"run one after another on one stack",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the sweep page lacks %q", want)
		}
	}
	series := regexp.MustCompile(`data-series="(\d+)"`).FindAllStringSubmatch(page, -1)
	if len(series) != 2 || series[0][1] != "3" || series[1][1] != "4" {
		t.Errorf("charts: %v, want the measure (median, least, greatest) and the distributions (2 variants × observed, declared)", series)
	}

	// A value that is not a number: the variants' positions.
	vs[0].Values, vs[1].Values = []string{"hashmap"}, []string{"rocksdb"}
	b, err = Sweep([]string{"state_backend"}, vs, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "variant (as in the table)") {
		t.Error("a non-numeric sweep is not charted by position")
	}
	if !strings.Contains(string(b), "run on a stack of its own") || strings.Contains(string(b), "one after another") {
		t.Error("a sweep with --fresh does not say each variant had a stack of its own")
	}
}
