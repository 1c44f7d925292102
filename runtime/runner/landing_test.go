package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/flinkapi/flinktest"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// shortWaits makes the smoke and batch waits of this test short.
func shortWaits(t *testing.T, wait time.Duration) {
	t.Helper()
	oldWait, oldInterval := resultWait, resultInterval
	resultWait, resultInterval = wait, 100*time.Millisecond
	t.Cleanup(func() { resultWait, resultInterval = oldWait, oldInterval })
}

// batchLab is a lab whose bounded job hourly_sales writes a ClickHouse
// table (as the seed lab's does, through Kafka and ClickHouse's Kafka
// engine), run against answers recorded from Flink 1.20.1 and a real
// ClickHouse.
func batchLab(t *testing.T, ch *testsrv.ClickHouseServer, chDB string) (*labdir.Lab, labdir.Endpoints) {
	t.Helper()
	srv := flinktest.Replay(t, "flink-1.20.1/batch.json")
	l := &schemas.Lab{Name: "landing", Seed: 1,
		Stack: &schemas.Stack{Flink: &schemas.Flink{Version: "1.20.1"}, ClickHouse: &schemas.ClickHouse{Database: chDB}},
		Tables: []*schemas.Table{{Name: "hourly", Stores: []*schemas.Store{
			{Kind: schemas.StoreClickHouse, Database: chDB, Name: "hourly", Version: "computed_at"}}}},
		Jobs: []*schemas.Job{{Name: "hourly_sales", Mode: schemas.ModeBatch, Writes: "hourly"}},
		Experiments: []*schemas.Experiment{{Name: "summary", Number: 4, Title: "Summary", Steps: []*schemas.Step{
			{Name: "batch", Kind: schemas.StepLab, Lab: &schemas.LabStep{Action: "batch"}},
		}}},
	}
	lab := labdirtest.Load(t, l, map[string]string{"sql/flink/hourly_sales.sql": fixture(t, "batch.sql")})
	ep := labdir.Endpoints{Flink: srv.REST, Gateway: srv.Gateway,
		DB: map[string]query.Endpoint{query.ClickHouse: {Engine: query.ClickHouse, Addr: ch.NativeAddr(), User: testsrv.ClickHouseReadOnlyUser, Database: chDB}}}
	return lab, ep
}

// TestBatchWaitsForClickHouse: like ./stream-lab batch, a batch step is
// done when the bounded job's result has reached ClickHouse, not when the
// Flink job finished: the next step of experiments 04 and 05 reads the
// summary there. The job's rows arrive a moment after the job finished
// (ClickHouse's Kafka engine reads them in batches).
func TestBatchWaitsForClickHouse(t *testing.T) {
	shortWaits(t, 20*time.Second)
	ch := testsrv.ClickHouse(t)
	chDB, _ := ch.NewDatabase(t)
	ch.Exec(t, "CREATE TABLE "+chDB+".hourly (category String, computed_at DateTime) ENGINE = MergeTree ORDER BY category")
	ch.Exec(t, "INSERT INTO "+chDB+".hourly VALUES ('books', '2026-11-29 09:00:00')")
	lab, ep := batchLab(t, ch, chDB)
	r, err := New(Options{Lab: lab, Endpoints: ep, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(1500 * time.Millisecond)
		ch.Query(context.Background(), "", "", "INSERT INTO "+chDB+".hourly VALUES ('books', '2026-11-29 10:00:01')")
	}()
	start := time.Now()
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Experiments[0].Steps[0]
	if s.Status != record.StatusOK {
		t.Fatalf("batch: %s %s", s.Status, s.Error)
	}
	if time.Since(start) < time.Second {
		t.Errorf("the batch step did not wait for the result to reach ClickHouse (%s)", time.Since(start))
	}
	row := s.Output.Tables[0].Rows[0]
	if got := strings.Join(row, " | "); !strings.Contains(got, "2026-11-29 10:00:01") || !strings.Contains(got, "2026-11-29 09:00:00") {
		t.Errorf("batch row: %s", got)
	}
}

// TestBatchResultNeverArrives: a job that finished but whose result does
// not reach ClickHouse fails the step, saying so (as ./stream-lab batch
// does), instead of letting the next step read an old summary.
func TestBatchResultNeverArrives(t *testing.T) {
	shortWaits(t, time.Second)
	ch := testsrv.ClickHouse(t)
	chDB, _ := ch.NewDatabase(t)
	ch.Exec(t, "CREATE TABLE "+chDB+".hourly (category String, computed_at DateTime) ENGINE = MergeTree ORDER BY category")
	ch.Exec(t, "INSERT INTO "+chDB+".hourly VALUES ('books', '2026-11-29 09:00:00')")
	lab, ep := batchLab(t, ch, chDB)
	r, err := New(Options{Lab: lab, Endpoints: ep, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Experiments[0].Steps[0]
	if s.Status != record.StatusError {
		t.Fatalf("batch: %s", s.Status)
	}
	want := "still shows max(computed_at) = 2026-11-29 09:00:00"
	if errText := s.Output.Tables[0].Rows[0][len(s.Output.Tables[0].Rows[0])-1]; !strings.Contains(errText, want) {
		t.Errorf("batch error %q lacks %q", errText, want)
	}
}

// TestSmokeWaitsForData: like ./stream-lab smoke, a check that fails is
// tried again until it passes or the smoke wait is over: right after the
// lab comes up, the streaming job's rows reach ClickHouse a moment later.
func TestSmokeWaitsForData(t *testing.T) {
	shortWaits(t, 20*time.Second)
	ch := testsrv.ClickHouse(t)
	chDB, _ := ch.NewDatabase(t)
	ch.Exec(t, "CREATE TABLE "+chDB+".wide (order_id Int64) ENGINE = MergeTree ORDER BY order_id")
	l := &schemas.Lab{Name: "smoky", Seed: 1,
		Stack: &schemas.Stack{ClickHouse: &schemas.ClickHouse{Database: chDB}},
		Tables: []*schemas.Table{{Name: "wide", Stores: []*schemas.Store{
			{Kind: schemas.StoreClickHouse, Database: chDB, Name: "wide"}}}},
		Jobs: []*schemas.Job{{Name: "order_wide", Mode: schemas.ModeStreaming, Writes: "wide"}},
		Experiments: []*schemas.Experiment{{Name: "baseline", Number: 1, Title: "Baseline", Steps: []*schemas.Step{
			{Name: "smoke", Kind: schemas.StepLab, Lab: &schemas.LabStep{Action: "smoke"}},
		}}},
	}
	lab := labdirtest.Load(t, l, map[string]string{})
	ep := labdir.Endpoints{DB: map[string]query.Endpoint{query.ClickHouse: {Engine: query.ClickHouse, Addr: ch.NativeAddr(), User: testsrv.ClickHouseReadOnlyUser, Database: chDB}}}
	r, err := New(Options{Lab: lab, Endpoints: ep, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(1500 * time.Millisecond)
		ch.Query(context.Background(), "", "", "INSERT INTO "+chDB+".wide VALUES (1), (2)")
	}()
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Experiments[0].Steps[0]
	if s.Status != record.StatusOK {
		t.Fatalf("smoke: %s %s %+v", s.Status, s.Error, s.Output.Tables)
	}
	// The services first (ClickHouse answers), then the data.
	rows := s.Output.Tables[0].Rows
	if len(rows) != 2 || rows[0][0] != "ClickHouse answers" || rows[1][0] != "ClickHouse "+chDB+".wide has rows" {
		t.Fatalf("smoke rows: %q", rows)
	}
	if row := rows[1]; row[1] != "pass" || row[2] != "2 rows" {
		t.Errorf("smoke row: %q", row)
	}
}
