package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// loansLab is a lab whose producer writes loans due two weeks after they
// are made, and returns that copy the loan's due date and remind a day
// before it, a late return always 2 minutes after its loan (a delay per
// outcome): times plus durations, from the same row (field), the
// parent row (parent) and the event's time (now). store is "mysql" or
// "postgres", the lab's source.
func loansLab(t *testing.T, store string) *schemas.Lab {
	t.Helper()
	stack := "mysql {}"
	if store == schemas.StorePostgres {
		stack = `postgres { database = "library" }`
	}
	src := fmt.Sprintf(`
lab "loans" {
  title = "Loans due two weeks after they are made"
  seed  = 7
}

stack {
  %s
}

table "loans" {
  key = ["loan_id"]
  column "loan_id" { type = "bigint" }
  column "member_id" { type = "int" }
  column "created_at" { type = "timestamp(3)" }
  column "due_at" { type = "timestamp(3)" }
  column "reminder_at" { type = "timestamp(3)" }
  column "loan_status" { type = "string(16)" }
  column "closed_at" {
    type     = "timestamp(3)"
    nullable = true
  }
  store %q {}
}

table "returns" {
  key = ["return_id"]
  column "return_id" { type = "bigint" }
  column "loan_id" { type = "bigint" }
  column "returned_at" { type = "timestamp(3)" }
  column "was_due_at" { type = "timestamp(3)" }
  column "grace_until" { type = "timestamp(3)" }
  column "logged_at" { type = "timestamp(3)" }
  store %q {}
}

producer "desk" {
  table = table.loans
  rate  = 5

  field "loan_id" { value = sequence(1) }
  field "member_id" { value = uniform_int(1, 500) }
  field "created_at" { value = now() }
  field "due_at" { value = field("created_at") + duration("14d") }
  field "reminder_at" { value = field("due_at") - duration("1d") }
  field "loan_status" { value = "OPEN" }

  follow "return" {
    table   = table.returns
    delay   = outcome_map({ RETURNED = exponential("30s", { max = "1d" }), LATE = "2m" })
    outcome = weighted({ RETURNED = 7, LATE = 2, LOST = 1 })
    never   = "LOST"

    field "return_id" { value = sequence(1) }
    field "loan_id" { value = parent("loan_id") }
    field "returned_at" { value = now() }
    field "was_due_at" { value = parent("created_at") + duration("2w") }
    field "grace_until" { value = field("was_due_at") + duration("2d12h") }
    field "logged_at" { value = now() - duration("90s") }

    update {
      loan_status = "RETURNED"
      closed_at   = now() + duration("1h")
    }
  }
}
`, stack, store, store)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644))
	lab, diags := schemas.NewParser().Load(dir, schemas.Options{})
	if diags.HasErrors() {
		t.Fatalf("loading the loans lab: %s", diags.Error())
	}
	return roundTrip(t, lab)
}

type sampleEvent struct {
	Time    string
	Event   string
	Outcome string
	Table   string
	Row     map[string]any
	Update  *struct{ Set map[string]any }
}

func sampleTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	tm, err := time.Parse("2006-01-02 15:04:05.000", s)
	if err != nil {
		t.Fatalf("%v is not a time: %v", v, err)
	}
	return tm
}

// TestTimeArithmeticSample checks what --sample prints: each loan due
// exactly 14 days after it is made, the reminder a day before, each
// return with the due date of its loan, and the same lines for the same
// seed.
func TestTimeArithmeticSample(t *testing.T) {
	lab := loansLab(t, schemas.StoreMySQL)
	out := sampleLines(t, compile(t, lab, lab.Seed), epoch, 2000)
	if again := sampleLines(t, compile(t, lab, lab.Seed), epoch, 2000); !bytes.Equal(out, again) {
		t.Fatal("two samples with the same seed differ")
	}
	if other := sampleLines(t, compile(t, lab, lab.Seed+1), epoch, 2000); bytes.Equal(out, other) {
		t.Fatal("samples with different seeds are the same")
	}
	due, made := map[float64]time.Time{}, map[float64]time.Time{}
	late := 0
	var loans, returns int
	for _, l := range scanLines(out) {
		var ev sampleEvent
		must(t, json.Unmarshal([]byte(l), &ev))
		at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", ev.Time)
		must(t, err)
		switch ev.Table {
		case "loans":
			loans++
			created, d := sampleTime(t, ev.Row["created_at"]), sampleTime(t, ev.Row["due_at"])
			if !created.Equal(at) || !d.Equal(created.Add(14*24*time.Hour)) || !sampleTime(t, ev.Row["reminder_at"]).Equal(d.Add(-24*time.Hour)) {
				t.Fatalf("loan %s", l)
			}
			due[ev.Row["loan_id"].(float64)] = d
			made[ev.Row["loan_id"].(float64)] = created
		case "returns":
			returns++
			d, ok := due[ev.Row["loan_id"].(float64)]
			if !ok {
				t.Fatalf("return before its loan: %s", l)
			}
			if !sampleTime(t, ev.Row["was_due_at"]).Equal(d) || !sampleTime(t, ev.Row["grace_until"]).Equal(d.Add(60*time.Hour)) ||
				!sampleTime(t, ev.Row["logged_at"]).Equal(at.Add(-90*time.Second)) || !sampleTime(t, ev.Row["returned_at"]).Equal(at) {
				t.Fatalf("return %s", l)
			}
			if ev.Outcome == "LATE" {
				late++
				if !at.Equal(made[ev.Row["loan_id"].(float64)].Add(2 * time.Minute)) {
					t.Fatalf("a late return not 2 minutes after its loan: %s", l)
				}
			} else if ev.Outcome != "RETURNED" {
				t.Fatalf("outcome %q: %s", ev.Outcome, l)
			}
			if ev.Update == nil || !sampleTime(t, ev.Update.Set["closed_at"]).Equal(at.Add(time.Hour)) {
				t.Fatalf("the return's update: %s", l)
			}
		}
	}
	if loans == 0 || returns == 0 || late == 0 || late == returns {
		t.Fatalf("%d loans and %d returns, %d late", loans, returns, late)
	}
}

// TestTimeArithmeticMariaDB writes the loans into MariaDB: every due date
// is its loan's time plus 14 days to the millisecond, and the tables are
// what --sample prints.
func TestTimeArithmeticMariaDB(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loansLab(t, schemas.StoreMySQL)
	plans := compile(t, lab, lab.Seed)
	const count = 600
	want := pgSample(t, lab, plans, count)
	ldb := newLabDB(t, srv, lab)
	sink := openSink(t, ldb.cfg)
	must(t, sink.Check(ctxTimeout(t, time.Minute), plans))
	_, err := Run(ctxTimeout(t, 5*time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: count, Resume: true})
	must(t, err)
	if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM loans"); n != count {
		t.Fatalf("%d loans, want %d", n, count)
	}
	checks := map[string]string{
		"due dates":     "SELECT COUNT(*) FROM loans WHERE due_at <> created_at + INTERVAL 14 DAY",
		"reminders":     "SELECT COUNT(*) FROM loans WHERE reminder_at <> created_at + INTERVAL 13 DAY",
		"returns":       "SELECT COUNT(*) FROM returns r JOIN loans l USING (loan_id) WHERE r.was_due_at <> l.due_at OR r.grace_until <> l.due_at + INTERVAL 60 HOUR",
		"closed loans":  "SELECT COUNT(*) FROM returns r JOIN loans l USING (loan_id) WHERE l.closed_at <> r.returned_at + INTERVAL 1 HOUR",
		"logged events": "SELECT COUNT(*) FROM returns WHERE logged_at <> returned_at - INTERVAL 90 SECOND",
	}
	if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM returns r JOIN loans l USING (loan_id) WHERE r.returned_at = l.created_at + INTERVAL 2 MINUTE"); n == 0 {
		t.Error("no return 2 minutes after its loan (the LATE outcome's delay)")
	}
	for what, q := range checks {
		if n := queryInt(t, ldb.db, q); n != 0 {
			t.Errorf("%s: %d rows wrong", what, n)
		}
	}
	if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM returns"); n == 0 {
		t.Error("no returns")
	}
	for _, table := range []string{"loans", "returns"} {
		compareTables(t, table, dump(t, ldb.db, table), want[table])
	}
}

// TestTimeArithmeticPostgres is TestTimeArithmeticMariaDB on PostgreSQL.
func TestTimeArithmeticPostgres(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab := loansLab(t, schemas.StorePostgres)
	plans := compile(t, lab, lab.Seed)
	const count = 600
	want := pgSample(t, lab, plans, count)
	ldb := newPGLabDB(t, srv, lab)
	sink := openPGSink(t, ldb.cfg)
	must(t, sink.Check(ctxTimeout(t, time.Minute), plans))
	_, err := Run(ctxTimeout(t, 5*time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: count, Resume: true})
	must(t, err)
	checks := map[string]string{
		"loans":         "SELECT COUNT(*) - 600 FROM loans",
		"due dates":     "SELECT COUNT(*) FROM loans WHERE due_at <> created_at + INTERVAL '14 days'",
		"reminders":     "SELECT COUNT(*) FROM loans WHERE reminder_at <> created_at + INTERVAL '13 days'",
		"returns":       "SELECT COUNT(*) FROM returns r JOIN loans l USING (loan_id) WHERE r.was_due_at <> l.due_at OR r.grace_until <> l.due_at + INTERVAL '60 hours'",
		"closed loans":  "SELECT COUNT(*) FROM returns r JOIN loans l USING (loan_id) WHERE l.closed_at <> r.returned_at + INTERVAL '1 hour'",
		"logged events": "SELECT COUNT(*) FROM returns WHERE logged_at <> returned_at - INTERVAL '90 seconds'",
	}
	if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM returns r JOIN loans l USING (loan_id) WHERE r.returned_at = l.created_at + INTERVAL '2 minutes'"); n == 0 {
		t.Error("no return 2 minutes after its loan (the LATE outcome's delay)")
	}
	for what, q := range checks {
		if n := queryInt(t, ldb.db, q); n != 0 {
			t.Errorf("%s: %d rows wrong", what, n)
		}
	}
	for _, table := range []string{"loans", "returns"} {
		compareTables(t, table, pgDump(t, ldb.db, lab, table), want[table])
	}
}
