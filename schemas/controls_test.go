package schemas

import (
	"strings"
	"testing"
)

// TestMutantControls: a mutant made of edits is the job's query with
// exactly those edits, keeps the job's name, tables and settings, and is
// rendered apart from the job; a kill switch and a fault are not mutants.
func TestMutantControls(t *testing.T) {
	lab, diags := loadSeed(t, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	job := lab.Job("order_wide")
	for name, edit := range map[string][2]string{
		"status_stale":     {"COALESCE(p.payment_status, 'PENDING') AS payment_status", "'PENDING' AS payment_status"},
		"status_premature": {"COALESCE(p.payment_status, 'PENDING')", "COALESCE(p.payment_status, 'PAID')"},
		"orders_lost":      {"ON o.order_id = p.order_id", "ON o.order_id = p.order_id WHERE MOD(o.order_id, 10) <> 3"},
	} {
		c := lab.Control(name)
		if c == nil || c.Mutant == nil {
			t.Fatalf("control %s is not a mutant", name)
		}
		m := c.Mutant
		if want := strings.Replace(job.Query, edit[0], edit[1], 1); m.Query != want {
			t.Errorf("%s: the mutant's query is\n%s\nwant\n%s", name, m.Query, want)
		}
		if m.Name != job.Name || m.Writes != job.Writes || strings.Join(m.Reads, ",") != strings.Join(job.Reads, ",") || m.QueryFile != "" {
			t.Errorf("%s: the mutant is not job %s with another query: %+v", name, job.Name, m)
		}
		if c.Kind() != ControlMutant || c.MutantFile() != "sql/flink/controls/"+name+".sql" {
			t.Errorf("%s: kind %q, file %q", name, c.Kind(), c.MutantFile())
		}
	}
	if job.Query == lab.Control("status_stale").Mutant.Query {
		t.Error("the job's own query was changed")
	}
	// A mutant in its settings alone: the job's query, its settings and
	// the control's over them.
	nr := lab.Control("no_restarts").Mutant
	if nr == nil || nr.Query != job.Query || len(nr.Settings) != len(job.Settings)+1 {
		t.Fatalf("no_restarts: %+v", nr)
	}
	found := false
	for _, s := range nr.Settings {
		found = found || s == Setting{Key: "restart-strategy.type", Value: "none"}
	}
	if !found {
		t.Errorf("no_restarts: settings %+v", nr.Settings)
	}
	// A mutant of a bounded job stays bounded: batch steps run it.
	if m := lab.Control("summary_paid_only").Mutant; m == nil || m.Mode != ModeBatch || !strings.Contains(m.Query, "END) AS BIGINT) AS order_count") {
		t.Errorf("summary_paid_only: %+v", m)
	}
	if k := lab.Control("taskmanager_stopped").Kind(); k != ControlKillSwitch {
		t.Errorf("taskmanager_stopped is a %q", k)
	}
	if c := lab.Control("taskmanager_paused"); c.Kind() != ControlFault || c.PauseFor != "40s" || c.Pause[0] != "taskmanager" {
		t.Errorf("taskmanager_paused: %+v", c)
	}
}
