package render

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// TestTimeAttributes checks that a table's event time and processing time
// reach the DDL of the job that reads it, and only that one.
func TestTimeAttributes(t *testing.T) {
	l, diags := schemas.NewParser().Load("../schemas/testdata/valid/event_time", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	j := l.Job("per_minute")
	sql := string(flinkJob(l, j, serverIDs(l), ComposeFace))
	for _, want := range []string{
		"  `proc_time` AS PROCTIME(),\n  WATERMARK FOR `read_at` AS `read_at` - INTERVAL '5' SECOND,\n  PRIMARY KEY (`id`) NOT ENFORCED",
	} {
		if !strings.Contains(sql, want) {
			t.Errorf("job SQL lacks %q:\n%s", want, sql)
		}
	}
	if strings.Count(sql, "WATERMARK") != 1 {
		t.Errorf("only the source declares a watermark:\n%s", sql)
	}
	for d, want := range map[string]string{"0s": "INTERVAL '0' SECOND", "2m": "INTERVAL '2' MINUTE", "1500ms": "INTERVAL '1.500' SECOND", "90s": "INTERVAL '90' SECOND"} {
		if got := flinkInterval(d); got != want {
			t.Errorf("flinkInterval(%q) = %q, want %q", d, got, want)
		}
	}
}
