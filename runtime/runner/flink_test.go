package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/runtime/compose"
	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/flinkapi/flinktest"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

func init() { flinkapi.PollInterval = time.Millisecond }

func x(src string) schemas.Expr { return schemas.Expr{Source: src, Text: src} }

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "flinkapi", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// standInDocker puts a docker on PATH that logs its arguments.
func standInDocker(t *testing.T) (log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "args.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"" + log + "\"\nfor a; do last=$a; done\necho \" Container flinky-$last-1  done\"\n"
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// TestFlinkSteps runs a worker-recovery-like experiment against answers
// recorded from Flink 1.20.1: the streaming job is submitted through the
// SQL gateway, a wait re-runs a flink step until checkpoints complete,
// compose stops and starts the TaskManager (stand-in docker), and the
// bounded job runs to FINISHED.
func TestFlinkSteps(t *testing.T) {
	srv := flinktest.Replay(t, "flink-1.20.1/streaming.json", "flink-1.20.1/batch.json")
	log := standInDocker(t)
	l := &schemas.Lab{Name: "flinky", Title: "Flink steps", Seed: 1,
		Stack: &schemas.Stack{Flink: &schemas.Flink{Version: "1.20.1", Image: "flink:1.20.1-scala_2.12-java17"}},
		Jobs: []*schemas.Job{
			{Name: "order_wide", Mode: schemas.ModeStreaming},
			{Name: "hourly_sales", Mode: schemas.ModeBatch},
			{Name: "lake_audit", Mode: schemas.ModeBatch, Unavailable: "reads fluss, which the stack does not run"},
		},
		Experiments: []*schemas.Experiment{{Name: "recovery", Number: 6, Title: "Recover", Steps: []*schemas.Step{
			{Name: "before", Kind: schemas.StepFlink, Flink: &schemas.FlinkStep{Job: "order_wide", Show: []string{"state", "checkpoints", "restarts"}},
				Captures: []*schemas.Capture{{Name: "checkpoints", Expr: x("result.checkpoints.completed")}},
				Expects:  []*schemas.Expect{{Condition: x(`result.state == "RUNNING" && result.restarts == 0`), Message: "The job runs."}}},
			{Name: "checkpointed", Kind: schemas.StepWait, Wait: &schemas.WaitStep{Rerun: "before", Until: ptr(x("result.checkpoints.completed >= 3 && result.vertices[0].records_out > 0")), Interval: "100ms", Timeout: "1m"}},
			{Name: "after", Kind: schemas.StepFlink, Flink: &schemas.FlinkStep{Job: "order_wide", Show: []string{"state", "vertices", "checkpoints"}},
				Expects: []*schemas.Expect{{Condition: x("result.vertices[0].records_out > 0 && result.checkpoints.completed > step.before.checkpoints"), Message: "Records flow and checkpoints complete."}}},
			{Name: "stop", Kind: schemas.StepCompose, Compose: &schemas.ComposeStep{Action: "stop", Service: "taskmanager"}},
			{Name: "start", Kind: schemas.StepCompose, Compose: &schemas.ComposeStep{Action: "start", Service: "taskmanager"}},
			{Name: "batch", Kind: schemas.StepLab, Lab: &schemas.LabStep{Action: "batch"},
				Expects: []*schemas.Expect{{Condition: x(`result.passed && result.jobs[0].state == "FINISHED"`), Message: "The bounded job finished."}}},
		}}},
	}
	lab := labdirtest.Load(t, l, map[string]string{
		"compose.yaml":               "services: {}\n",
		"sql/flink/order_wide.sql":   fixture(t, "streaming.sql"),
		"sql/flink/hourly_sales.sql": fixture(t, "batch.sql"),
	})
	c, err := compose.New(lab.Dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Lab: lab, Endpoints: labdir.Endpoints{Flink: srv.REST, Gateway: srv.Gateway}, Compose: c, SubmitJobs: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Jobs) != 1 || rec.Jobs[0].How != "submitted" || len(rec.Jobs[0].ID) != 32 {
		t.Fatalf("jobs: %+v", rec.Jobs)
	}
	steps := rec.Experiments[0].Steps
	status := map[string]*record.Step{}
	for _, s := range steps {
		status[s.Name] = s
		if s.Status != record.StatusOK {
			t.Errorf("step %s: %s %s", s.Name, s.Status, s.Error)
		}
		for _, e := range s.Expectations {
			if !e.Held {
				t.Errorf("step %s: expectation %q not held (%s)", s.Name, e.Message, e.Error)
			}
		}
	}
	if c := status["before"].Captures; len(c) != 1 || c[0].Display != "0" {
		t.Errorf("captured checkpoints: %+v", c)
	}
	if status["checkpointed"].Attempts < 2 {
		t.Errorf("the wait did not re-run: %d runs", status["checkpointed"].Attempts)
	}
	out := status["after"].Output
	if out == nil {
		t.Fatal("after: no output")
	}
	if len(out.Tables) != 2 || out.Tables[1].Title != "Vertices" || !strings.HasPrefix(out.Tables[1].Rows[0][0], "Source: orders_gen") {
		t.Errorf("after: %+v", out.Tables)
	}
	b, _ := os.ReadFile(log)
	calls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(calls) != 2 || !strings.HasSuffix(calls[0], "compose.yaml stop taskmanager") || !strings.HasSuffix(calls[1], "compose.yaml start taskmanager") {
		t.Errorf("docker calls: %q", calls)
	}
	if ran := status["stop"].Ran; !strings.HasPrefix(ran.Command, "docker compose --project-directory ") || !strings.HasSuffix(ran.Command, " stop taskmanager") ||
		ran.Action != "stop" || ran.Service != "taskmanager" || !strings.Contains(status["stop"].Output.Text, "flinky-taskmanager-1") {
		t.Errorf("stop: %+v %+v", status["stop"].Ran, status["stop"].Output)
	}
	batch := status["batch"]
	if batch.Output == nil || batch.Ran == nil {
		t.Fatalf("batch: %+v", batch)
	}
	if rows := batch.Output.Tables[0].Rows; len(rows) != 1 || rows[0][0] != "hourly_sales" || rows[0][2] != "FINISHED" {
		t.Errorf("batch: %+v", batch.Output.Tables)
	}
	if !strings.Contains(batch.Ran.SQL, "SET 'table.dml-sync' = 'true'") {
		t.Errorf("batch SQL: %s", batch.Ran.SQL)
	}
	md, _ := os.ReadFile(filepath.Join(r.Dir(), record.MarkdownName))
	for _, want := range []string{"| Flink job order_wide | `" + rec.Jobs[0].ID + "` (submitted)", "| state       | RUNNING", "Vertices:"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("record.md lacks %q", want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestFailedSubmissionAndMissingDocker: a job whose statement Flink
// rejects is recorded with Flink's words, the flink step that needs it
// fails saying which jobs exist, and a compose step without Docker says
// what is missing.
func TestFailedSubmissionAndMissingDocker(t *testing.T) {
	// batch.json answers the job list (order_wide runs there).
	srv := flinktest.Replay(t, "flink-1.20.1/errors.json", "flink-1.20.1/batch.json")
	l := &schemas.Lab{Name: "broken", Seed: 1, Stack: &schemas.Stack{Flink: &schemas.Flink{}},
		Jobs: []*schemas.Job{{Name: "broken", Mode: schemas.ModeStreaming}},
		Experiments: []*schemas.Experiment{{Name: "e", Number: 1, Title: "E", Steps: []*schemas.Step{
			{Name: "stop", Kind: schemas.StepCompose, Compose: &schemas.ComposeStep{Action: "stop", Service: "taskmanager"}},
		}}},
	}
	lab := labdirtest.Load(t, l, map[string]string{"sql/flink/broken.sql": "SELECT * FROM no_such_table;\n"})
	r, err := New(Options{Lab: lab, Endpoints: labdir.Endpoints{Flink: srv.REST, Gateway: srv.Gateway}, SubmitJobs: true,
		ComposeErr: errors.New("Docker is needed to run the lab's services, and no docker command was found on PATH.")})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	j := rec.Jobs[0]
	if j.How != "failed" || !strings.Contains(j.Error, "Object 'no_such_table' not found") {
		t.Errorf("job: %+v", j)
	}
	// The head's one line leads with the root cause; the error follows in full.
	md := string(record.Markdown(rec))
	for _, want := range []string{"| failed: statement 1 failed: org.apache.calcite.sql.validate.SqlValidatorException: Object 'no_such_table' not found",
		"Flink job `broken` (failed):\n\n```\nstatement 1 failed:"} {
		if !strings.Contains(md, want) {
			t.Errorf("record.md lacks %q:\n%s", want, md)
		}
	}
	s := rec.Experiments[0].Steps[0]
	if s.Status != record.StatusError || !strings.HasPrefix(s.Error, "Docker is needed") {
		t.Errorf("compose step: %+v", s)
	}
	if !rec.Failed() {
		t.Error("the record does not count the failures")
	}
}

// TestBatchFailureCarriesRootCause: a bounded job whose statement the
// gateway rejects (answers recorded from Flink 1.20.1, whose error nests
// five "Caused by:") fails its step with the innermost cause, in full, in
// record.json and record.md; the job table's cell is cut, the error not.
func TestBatchFailureCarriesRootCause(t *testing.T) {
	srv := flinktest.Replay(t, "flink-1.20.1/errors.json")
	l := &schemas.Lab{Name: "broken", Seed: 1, Stack: &schemas.Stack{Flink: &schemas.Flink{}},
		Jobs: []*schemas.Job{{Name: "broken", Mode: schemas.ModeBatch}},
		Experiments: []*schemas.Experiment{{Name: "e", Number: 1, Title: "E", Steps: []*schemas.Step{
			{Name: "batch", Kind: schemas.StepLab, Lab: &schemas.LabStep{Action: "batch"}},
		}}},
	}
	lab := labdirtest.Load(t, l, map[string]string{"sql/flink/broken.sql": "SELECT * FROM no_such_table;\n"})
	r, err := New(Options{Lab: lab, Endpoints: labdir.Endpoints{Flink: srv.REST, Gateway: srv.Gateway}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const root = "org.apache.calcite.sql.validate.SqlValidatorException: Object 'no_such_table' not found"
	s := rec.Experiments[0].Steps[0]
	want := "1 of 1 bounded jobs failed:\n\nbroken: statement 1 failed: " + root + "\n"
	if s.Status != record.StatusError || !strings.HasPrefix(s.Error, want) {
		t.Fatalf("step error does not lead with the root cause:\n%s", s.Error)
	}
	md := string(record.Markdown(rec))
	if !strings.Contains(md, "Error:\n\n```\n"+want) {
		t.Errorf("record.md does not show the root cause in full:\n%s", md)
	}
	if !strings.Contains(md, "Caused by: org.apache.flink.table.api.ValidationException: SQL validation failed.") {
		t.Errorf("record.md lacks the exception chain:\n%s", md)
	}
}

// A face that cannot look at the processes (compose, Kubernetes) asks
// Flink for its JVMs; the record's head shows each with its heap.
func TestFlinkJVMs(t *testing.T) {
	srv := flinktest.Replay(t, "flink-1.20.1/jvms.json")
	r := &Runner{flink: flinkapi.New(srv.REST, srv.Gateway), rec: &record.Record{}}
	r.rec.JVMs = r.flinkJVMs(context.Background())
	var rows []string
	for _, row := range r.rec.ProvenanceRows() {
		rows = append(rows, row.Label+": "+row.Value)
	}
	want := []string{
		"JVM of jobmanager: Java OpenJDK 64-Bit Server VM - Debian - 17/17.0.15+6-Debian-1deb12u1, heap 288 MiB (-Xmx301989887) (asked: GET /jobmanager/environment)",
		"JVM of taskmanager taskmanager: not known: Flink does not say a TaskManager's Java release, heap 412 MiB (heapMax) (asked: GET /taskmanagers/{id})",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("head rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// TestWaitEndsWithTheJob: a wait on a flink step stops at the run that
// finds its job FAILED (answers recorded from Flink 1.20.1: a job that
// divides by zero, restarts twice and fails), instead of re-running an
// answer that can no longer change until the timeout; the step is
// timed out, evaluated on that last run, and says why it stopped.
func TestWaitEndsWithTheJob(t *testing.T) {
	// batch.json answers the job list and streaming.json the job in it
	// (failing is not there: the runner follows the job it submitted by ID).
	srv := flinktest.Replay(t, "flink-1.20.1/failing.json", "flink-1.20.1/batch.json", "flink-1.20.1/streaming.json")
	l := &schemas.Lab{Name: "failing", Seed: 1, Stack: &schemas.Stack{Flink: &schemas.Flink{}},
		Jobs: []*schemas.Job{{Name: "failing", Mode: schemas.ModeStreaming}},
		Experiments: []*schemas.Experiment{{Name: "e", Number: 1, Title: "E", Steps: []*schemas.Step{
			{Name: "job", Kind: schemas.StepFlink, Flink: &schemas.FlinkStep{Job: "failing", Show: []string{"state", "restarts"}}},
			{Name: "recovered", Kind: schemas.StepWait, Wait: &schemas.WaitStep{Rerun: "job", Until: ptr(x(`result.state == "RUNNING" && result.checkpoints.completed > 100`)), Interval: "100ms", Timeout: "10m"},
				Expects: []*schemas.Expect{{Condition: x(`result.state == "RUNNING"`), Message: "The job runs."}}},
		}}},
	}
	lab := labdirtest.Load(t, l, map[string]string{"sql/flink/failing.sql": fixture(t, "failing.sql")})
	r, err := New(Options{Lab: lab, Endpoints: labdir.Endpoints{Flink: srv.REST, Gateway: srv.Gateway}, SubmitJobs: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("the wait ran for %s", took)
	}
	s := rec.Experiments[0].Steps[1]
	if s.Status != record.StatusTimedOut || s.Attempts != 3 {
		t.Errorf("wait: status %s after %d runs", s.Status, s.Attempts)
	}
	if notes := strings.Join(s.Output.Notes, "\n"); !strings.Contains(notes, "Stopped early, after run 3") || !strings.Contains(notes, "job failing is FAILED, a state Flink never leaves") {
		t.Errorf("notes: %s", notes)
	}
	if e := s.Expectations; len(e) != 1 || e[0].Held {
		t.Errorf("expectation on the last run: %+v", e)
	}
}

// A flink step without a job shows every job that has not ended, however
// many mutants came and went before it, and then the newest ended ones.
func TestJobsShownKeepsTheRunningOnes(t *testing.T) {
	var jobs []flinkapi.JobSummary // newest first, as flinkapi.Jobs gives them
	for i := range 25 {
		jobs = append(jobs, flinkapi.JobSummary{ID: fmt.Sprint("mutant", i), State: "CANCELED"})
	}
	jobs = append(jobs, flinkapi.JobSummary{ID: "restarting", State: "RESTARTING"}, flinkapi.JobSummary{ID: "own", State: "RUNNING"})
	shown, left := jobsShown(jobs, 20)
	if len(shown) != 20 || left != 7 || shown[18].ID != "restarting" || shown[19].ID != "own" || shown[0].ID != "mutant0" || shown[17].ID != "mutant17" {
		t.Errorf("shown %d (first %s, last %s), left %d", len(shown), shown[0].ID, shown[len(shown)-1].ID, left)
	}
	if shown, left := jobsShown(jobs[25:], 20); len(shown) != 2 || left != 0 {
		t.Errorf("two jobs: shown %d, left %d", len(shown), left)
	}
}
