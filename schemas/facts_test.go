package schemas

import (
	"slices"
	"testing"
)

// TestSmokeChecks: the seed lab's smoke checks cover the services, the
// streaming and tiering jobs, the producer's tables, and every store the
// streaming job writes (lakes included); without lakes, no lake check
// and no tiering job.
func TestSmokeChecks(t *testing.T) {
	kinds := func(cs []SmokeCheck) map[SmokeKind][]string {
		out := map[SmokeKind][]string{}
		for _, c := range cs {
			out[c.Kind] = append(out[c.Kind], c.Table+c.Job+c.Dir)
		}
		return out
	}
	lab, _ := loadSeed(t, Options{})
	got := kinds(lab.SmokeChecks())
	want := map[SmokeKind][]string{
		SmokeServices: {""},
		SmokeJob:      {"order_wide", ""},
		SmokeGrows:    {"shop.orders"},
		SmokeRows:     {"shop.payments", "dwd-order-wide", "analytics.dwd_order_wide"},
		SmokeLake:     {"lab.dwd_order_widepaimon/lab.db/dwd_order_wide/snapshot", "lab.dwd_order_wideiceberg/lab/dwd_order_wide/data"},
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s checks: %q, want %q", k, got[k], w)
		}
	}
	if len(got[SmokeNote]) == 0 {
		t.Error("no note of the bounded jobs")
	}
	small, _ := loadSeed(t, vars("lakes=false"))
	got = kinds(small.SmokeChecks())
	if len(got[SmokeLake]) != 0 || !slices.Equal(got[SmokeJob], []string{"order_wide"}) {
		t.Errorf("without lakes: %q", got)
	}
}
