package flinkapi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/runtime/flinkapi/flinktest"
)

const fixtures = "flink-1.20.1/"

func init() { PollInterval = time.Millisecond }

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func script(t *testing.T, name string) []string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Statements(string(b))
}

var all = []string{ShowState, ShowVertices, ShowCheckpoints, ShowRestarts, ShowExceptions}

func TestStreamingJob(t *testing.T) {
	srv := flinktest.Replay(t, fixtures+"streaming.json")
	c := New(srv.REST, srv.Gateway)
	ov, err := c.Overview(ctx(t))
	if err != nil || ov.FlinkVersion != "1.20.1" || ov.TaskManagers != 1 {
		t.Fatalf("overview: %+v, %v", ov, err)
	}
	jobs, err := c.Jobs(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := FindJob(jobs, "order_wide"); ok {
		t.Fatalf("order_wide before submission: %+v", jobs)
	}
	run, err := c.RunScript(ctx(t), "order_wide", script(t, "streaming.sql"), 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 4 || len(run.JobID) != 32 {
		t.Fatalf("run: %d results, job %q", len(run.Results), run.JobID)
	}
	if got := run.Results[3].Columns; len(got) != 1 || got[0].Name != "job id" {
		t.Fatalf("INSERT result columns: %+v", got)
	}
	var st *Status
	for i := 0; i < 50; i++ {
		st, err = c.JobStatus(ctx(t), run.JobID, all, 10)
		if err != nil {
			t.Fatal(err)
		}
		if st.Checkpoints.Completed >= 3 && st.Vertices[0].RecordsOut > 0 {
			break
		}
	}
	if st.State != "RUNNING" || st.Name != "order_wide" || st.Type != "STREAMING" {
		t.Fatalf("status: %+v", st)
	}
	if st.Checkpoints.Completed < 3 || st.Checkpoints.LatestID == 0 || st.Checkpoints.LatestTime.IsZero() {
		t.Fatalf("checkpoints: %+v", st.Checkpoints)
	}
	if len(st.Vertices) != 2 || !strings.HasPrefix(st.Vertices[0].Name, "Source: orders_gen") ||
		st.Vertices[0].RecordsOut == 0 || st.Vertices[1].RecordsIn == 0 {
		t.Fatalf("vertices: %+v", st.Vertices)
	}
	if st.Restarts != 0 || len(st.Exceptions) != 0 {
		t.Fatalf("restarts %d, exceptions %+v", st.Restarts, st.Exceptions)
	}
	jobs, err = c.Jobs(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	j, ok := FindJob(jobs, "order_wide")
	if !ok || j.ID != run.JobID || j.State != "RUNNING" {
		t.Fatalf("after submission: %+v", jobs)
	}
}

func TestBatchJobWaitsForCompletion(t *testing.T) {
	srv := flinktest.Replay(t, fixtures+"batch.json")
	c := New(srv.REST, srv.Gateway)
	run, err := c.RunScript(ctx(t), "hourly_sales", script(t, "batch.sql"), 100)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.JobStatus(ctx(t), run.JobID, []string{ShowState, ShowVertices}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "FINISHED" || st.Type != "BATCH" || st.Name != "hourly_sales" {
		t.Fatalf("batch: %+v", st)
	}
}

func TestFailingJob(t *testing.T) {
	srv := flinktest.Replay(t, fixtures+"failing.json")
	c := New(srv.REST, srv.Gateway)
	run, err := c.RunScript(ctx(t), "failing", script(t, "failing.sql"), 100)
	if err != nil {
		t.Fatal(err)
	}
	var st *Status
	for i := 0; i < 100; i++ {
		st, err = c.JobStatus(ctx(t), run.JobID, []string{ShowState, ShowRestarts, ShowExceptions, ShowCheckpoints}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if st.State == "FAILED" {
			break
		}
	}
	if st.State != "FAILED" || st.Restarts < 1 || len(st.Exceptions) == 0 {
		t.Fatalf("failing: %+v", st)
	}
	msg := st.Exceptions[0].Message
	if !strings.Contains(msg, "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy") ||
		!strings.Contains(msg, "java.lang.ArithmeticException: / by zero") || strings.Contains(msg, "\tat ") {
		t.Fatalf("exception message:\n%s", msg)
	}
	if !strings.Contains(st.Exceptions[0].Task, "Source: numbers") {
		t.Fatalf("exception task: %q", st.Exceptions[0].Task)
	}
	// Why the job failed: the root exception's innermost cause first, then
	// the chain under "Recovery is suppressed".
	why, err := c.RootException(ctx(t), run.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(why, "java.lang.ArithmeticException: / by zero\n") ||
		!strings.Contains(why, "org.apache.flink.runtime.JobException: Recovery is suppressed") || strings.Contains(why, "\tat ") {
		t.Errorf("root exception:\n%s", why)
	}
}

func TestQueryRows(t *testing.T) {
	srv := flinktest.Replay(t, fixtures+"query.json")
	c := New(srv.REST, srv.Gateway)
	run, err := c.RunScript(ctx(t), "query", script(t, "query.sql"), 100)
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[1]
	var names []string
	for _, c := range r.Columns {
		names = append(names, c.Name+" "+c.Type)
	}
	if !reflect.DeepEqual(names, []string{"order_id INTEGER", "category VARCHAR", "payment_status VARCHAR"}) {
		t.Fatalf("columns: %v", names)
	}
	if len(r.Rows) != 2 || r.Rows[0][2] != nil || r.Rows[1][2] != "PAID" || r.Rows[1][1] != "home" {
		t.Fatalf("rows: %#v", r.Rows)
	}
}

func TestErrorsVerbatim(t *testing.T) {
	srv := flinktest.Replay(t, fixtures+"errors.json")
	c := New(srv.REST, srv.Gateway)
	_, err := c.RunScript(ctx(t), "broken", []string{"SELECT * FROM no_such_table"}, 10)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"statement 1 failed", "Object 'no_such_table' not found", "org.apache.flink.table.api.ValidationException: SQL validation failed."} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\tat ") || strings.Contains(msg, "more\n") {
		t.Errorf("error keeps stack frames:\n%s", msg)
	}
	// The gateway's answer nests five "Caused by:" under its own wrappers
	// (SqlGatewayException twice, "Failed to execute the operation"); the
	// innermost one says what went wrong, and leads the error.
	const root = "org.apache.calcite.sql.validate.SqlValidatorException: Object 'no_such_table' not found"
	var se *StatementError
	if !errors.As(err, &se) || se.RootCause() != root {
		t.Errorf("root cause: got %q, want %q", se.RootCause(), root)
	}
	if first, _, _ := strings.Cut(msg, "\n"); first != "statement 1 failed: "+root {
		t.Errorf("the error does not lead with the root cause: %q", first)
	}
	_, err = c.Job(ctx(t), "00000000000000000000000000000000")
	if !NotFound(err) || !strings.Contains(err.Error(), "Job 00000000000000000000000000000000 not found") {
		t.Fatalf("unknown job: %v", err)
	}
}

func TestRootCause(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"java.lang.RuntimeException: outer\n\tat a.b(C.java:1)\nCaused by: java.io.IOException: middle\n\t... 3 more\nCaused by: org.x.Y: the table is not empty\nsecond line of it\n\tat d.e(F.java:2)\n",
			"org.x.Y: the table is not empty\nsecond line of it"},
		{"Job 0 not found", "Job 0 not found"},
	} {
		if got := RootCause(c.in); got != c.want {
			t.Errorf("RootCause(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFindJob(t *testing.T) {
	jobs := []JobSummary{
		{ID: "a", Name: "x", State: "FAILED", StartTime: 5},
		{ID: "b", Name: "x", State: "RUNNING", StartTime: 3},
		{ID: "c", Name: "x", State: "CANCELED", StartTime: 9},
		{ID: "d", Name: "y", State: "RUNNING", StartTime: 1},
	}
	if j, _ := FindJob(jobs, "x"); j.ID != "b" {
		t.Errorf("active job first: got %s", j.ID)
	}
	if j, _ := FindJob(jobs[:1], "x"); j.ID != "a" {
		t.Errorf("ended job: got %s", j.ID)
	}
	if j, _ := FindJob([]JobSummary{jobs[0], jobs[2]}, "x"); j.ID != "c" {
		t.Errorf("newest ended job: got %s", j.ID)
	}
	if _, ok := FindJob(jobs, "z"); ok {
		t.Error("found a job that is not there")
	}
}

func TestPipelineName(t *testing.T) {
	stmts := []string{"SET 'x' = 'y'", "-- the job's name\nSET 'pipeline.name' = 'it''s here'", "INSERT INTO a SELECT 1"}
	if n := PipelineName(stmts); n != "it's here" {
		t.Errorf("pipeline name %q", n)
	}
	if n := PipelineName(stmts[:1]); n != "" {
		t.Errorf("pipeline name %q", n)
	}
}

func TestSubstitute(t *testing.T) {
	out, missing := Substitute("'password' = '${MYSQL_CDC_PASSWORD}', 'u' = '${MYSQL_CDC_USER}', '${NOPE}', '${NOPE}', $PLAIN",
		map[string]string{"MYSQL_CDC_PASSWORD": "s3cret", "MYSQL_CDC_USER": "cdc"})
	if out != "'password' = 's3cret', 'u' = 'cdc', '${NOPE}', '${NOPE}', $PLAIN" || !reflect.DeepEqual(missing, []string{"NOPE"}) {
		t.Fatalf("%q %v", out, missing)
	}
}

func TestExceptionChain(t *testing.T) {
	in := "org.x.A: outer\n\tat a.b(C.java:1)\n\t... 3 more\nCaused by: org.x.B: inner\n\tat d.e(F.java:2)\n"
	if got := ExceptionChain(in); got != "org.x.A: outer\nCaused by: org.x.B: inner" {
		t.Fatalf("%q", got)
	}
}

// The JVMs as the native stack's Flink 1.20.1 told them: the
// JobManager's release and -Xmx, the TaskManager's maximum heap.
func TestJVMs(t *testing.T) {
	srv := flinktest.Replay(t, fixtures+"jvms.json")
	c := New(srv.REST, srv.Gateway)
	jvms, err := c.JVMs(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []JVM{
		{Process: "jobmanager", Version: "OpenJDK 64-Bit Server VM - Debian - 17/17.0.15+6-Debian-1deb12u1", Xmx: "-Xmx301989887"},
		{Process: "taskmanager taskmanager", HeapMax: 432013312},
	}
	if len(jvms) != len(want) {
		t.Fatalf("JVMs %+v", jvms)
	}
	for i := range want {
		if jvms[i] != want[i] {
			t.Errorf("JVM %d = %+v, want %+v", i, jvms[i], want[i])
		}
	}
}
