package schemas

import (
	"os"
	"path/filepath"
	"testing"
)

// lateness = "0s" is the default written out, and loads; a negative one
// does not.
func TestLatenessZero(t *testing.T) {
	for _, c := range []struct {
		lateness string
		ok       bool
	}{{`"0s"`, true}, {`"5s"`, true}, {`"-1s"`, false}} {
		dir := t.TempDir()
		src := `lab "l" { title = "L" }
stack {
  mysql {}
}
table "t" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "at" { type = "timestamp(3)" }
  event_time {
    column   = "at"
    lateness = ` + c.lateness + `
  }
  store "mysql" {}
}
`
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		lab, diags := NewParser().Load(dir, Options{})
		if diags.HasErrors() == c.ok {
			t.Errorf("lateness = %s: %v", c.lateness, diags)
			continue
		}
		if c.ok && lab.Tables[0].Time.Lateness != map[string]string{`"0s"`: "0s", `"5s"`: "5s"}[c.lateness] {
			t.Errorf("lateness = %s: decoded %q", c.lateness, lab.Tables[0].Time.Lateness)
		}
	}
}
