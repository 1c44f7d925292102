package schemas

import (
	"fmt"
	"strings"
	"testing"
)

// TestSQLSourceHeredoc maps a word of a <<- heredoc query (indentation
// stripped, an interpolation on another line) to its line and column in
// the .hcl file.
func TestSQLSourceHeredoc(t *testing.T) {
	p := NewParser()
	lab, diags := p.Load("../labs/sensors", Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	j := lab.Job("site_heat")
	for word, want := range map[string]string{"MAX(measured_at)": "jobs.hcl:21:7", "GROUP BY": "jobs.hcl:24:5", "temperature >=": "jobs.hcl:23:11"} {
		i := strings.Index(j.Query, word)
		r, ok := j.QuerySource.Range(i, i+len(word))
		got := fmt.Sprintf("%s:%d:%d", r.Filename[strings.LastIndex(r.Filename, "/")+1:], r.Start.Line, r.Start.Column)
		if !ok || got != want {
			t.Errorf("%s at %s, want %s", word, got, want)
		}
	}
	i := strings.Index(lab.Job("device_window").Query, "FROM")
	if r, _ := lab.Job("device_window").QuerySource.Range(i, i+4); !strings.HasSuffix(r.Filename, "jobs/device_window.sql") {
		t.Errorf("a file() query maps to %s", r)
	}
}
