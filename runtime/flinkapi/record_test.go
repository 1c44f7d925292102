package flinkapi

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/labgen/labgen/runtime/flinkapi/flinktest"
)

// TestRecordFixtures records the cassettes the other tests replay. It runs
// only against a live Flink, as prove/flink-record/record.sh starts it:
//
//	FLINK_RECORD_REST=http://127.0.0.1:P FLINK_RECORD_GATEWAY=http://127.0.0.1:Q \
//	FLINK_RECORD_VERSION=1.20.1 go test ./runtime/flinkapi -run TestRecordFixtures
//
// Each scenario goes through the same client calls the runtime makes.
func TestRecordFixtures(t *testing.T) {
	rest, gw, version := os.Getenv("FLINK_RECORD_REST"), os.Getenv("FLINK_RECORD_GATEWAY"), os.Getenv("FLINK_RECORD_VERSION")
	if rest == "" || gw == "" || version == "" {
		t.Skip("records fixtures from a live Flink; run prove/flink-record/record.sh")
	}
	how := "by prove/flink-record/record.sh: Flink " + version + " MiniCluster (1 TaskManager, 4 slots) with its REST endpoint and a SQL gateway in one JVM, artifacts from Maven Central"
	rec := &flinktest.Recorder{REST: rest, Gateway: gw}
	c := New(rest, gw)
	c.HTTP = &http.Client{Transport: rec, Timeout: 60 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dir := filepath.Join("testdata", "flink-"+version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(scenario string) {
		t.Helper()
		if err := rec.Save(filepath.Join(dir, scenario+".json"), version, scenario, how); err != nil {
			t.Fatal(err)
		}
	}
	script := func(name string) []string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return Statements(string(b))
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// streaming: submit a checkpointed job, watch it checkpoint.
	_, err := c.Overview(ctx)
	must(err)
	_, err = c.Jobs(ctx)
	must(err)
	run, err := c.RunScript(ctx, "order_wide", script("streaming.sql"), 100)
	must(err)
	if run.JobID == "" {
		t.Fatal("the streaming script submitted no job")
	}
	for i := 0; ; i++ {
		st, err := c.JobStatus(ctx, run.JobID, []string{ShowState, ShowVertices, ShowCheckpoints, ShowRestarts, ShowExceptions}, DefaultMaxExceptions)
		must(err)
		if st.State == "RUNNING" && st.Checkpoints.Completed >= 3 && len(st.Vertices) > 0 && st.Vertices[0].RecordsOut > 0 {
			break
		}
		if i > 60 {
			t.Fatalf("streaming job: %+v", st)
		}
		time.Sleep(time.Second)
	}
	jobs, err := c.Jobs(ctx)
	must(err)
	if j, ok := FindJob(jobs, "order_wide"); !ok || j.State != "RUNNING" {
		t.Fatalf("order_wide not running after its session closed: %+v", jobs)
	}
	_, err = c.Overview(ctx)
	must(err)
	save("streaming")

	// query: a bounded SELECT with a NULL.
	run, err = c.RunScript(ctx, "query", script("query.sql"), 100)
	must(err)
	if len(run.Results) != 2 || len(run.Results[1].Rows) != 2 {
		t.Fatalf("query: %+v", run.Results)
	}
	save("query")

	// batch: a bounded job that the INSERT waits for.
	_, err = c.Jobs(ctx)
	must(err)
	run, err = c.RunScript(ctx, "hourly_sales", script("batch.sql"), 100)
	must(err)
	st, err := c.JobStatus(ctx, run.JobID, []string{ShowState, ShowVertices}, 10)
	must(err)
	if st.State != "FINISHED" {
		t.Fatalf("batch job after dml-sync: %s", st.State)
	}
	save("batch")

	// failing: restarts, exceptions, FAILED.
	run, err = c.RunScript(ctx, "failing", script("failing.sql"), 100)
	must(err)
	for i := 0; ; i++ {
		st, err := c.JobStatus(ctx, run.JobID, []string{ShowState, ShowRestarts, ShowExceptions, ShowCheckpoints}, DefaultMaxExceptions)
		must(err)
		if st.State == "FAILED" {
			break
		}
		if i > 90 {
			t.Fatalf("failing job did not fail: %+v", st)
		}
		time.Sleep(time.Second)
	}
	save("failing")

	// errors: a statement Flink rejects, a job that does not exist.
	_, err = c.RunScript(ctx, "broken", []string{"SELECT * FROM no_such_table"}, 10)
	if err == nil {
		t.Fatal("a query of a missing table succeeded")
	}
	if _, err := c.Job(ctx, "00000000000000000000000000000000"); !NotFound(err) {
		t.Fatalf("unknown job: %v", err)
	}
	save("errors")
}
