package runner

import (
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
)

func TestScriptChanged(t *testing.T) {
	old := scriptDigest([]string{"SET 'pipeline.name' = 'wide'", "INSERT INTO t SELECT * FROM s WHERE d < INTERVAL '5' SECOND"})
	now := scriptDigest([]string{"SET 'pipeline.name' = 'wide'", "INSERT INTO t SELECT * FROM s WHERE d < INTERVAL '45' SECOND"})
	if old == now {
		t.Fatal("two scripts, one digest")
	}
	memo := jobMemo{ID: "j1", Digest: old}
	for _, c := range []struct {
		name       string
		memo       jobMemo
		remembered bool
		id, digest string
		want       bool
	}{
		{"the script changed since labgen submitted the running job", memo, true, "j1", now, true},
		{"the same script", memo, true, "j1", old, false},
		{"nothing remembered: kept, as before", jobMemo{}, false, "j1", now, false},
		{"another job runs under the name (submitted by someone else)", memo, true, "j2", now, false},
	} {
		if got := scriptChanged(c.memo, c.remembered, c.id, c.digest); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestJobMemos(t *testing.T) {
	lab := &labdir.Lab{Dir: t.TempDir()}
	if m := readJobMemos(lab); len(m) != 0 {
		t.Fatalf("fresh lab: %v", m)
	}
	want := map[string]jobMemo{"wide": {ID: "j2", Digest: "d", Replaced: "j1"}}
	if err := writeJobMemos(lab, want); err != nil {
		t.Fatal(err)
	}
	got := readJobMemos(lab)
	if got["wide"].ID != "j2" || got["wide"].Digest != "d" || got["wide"].Replaced != "j1" {
		t.Fatalf("read back %+v", got)
	}
}
