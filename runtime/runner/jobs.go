package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// jobScript reads sql/flink/<job>.sql, fills in ${NAME} from .env, and
// returns the statements as sent and as recorded (placeholders kept).
func (r *Runner) jobScript(job string) (sent, shown []string, err error) {
	return r.script("job "+job, schemas.JobFile(job))
}

// script reads a rendered Flink script of the face (rel) as jobScript
// does; what names it in errors.
func (r *Runner) script(what, rel string) (sent, shown []string, err error) {
	b, err := os.ReadFile(r.opt.Lab.FacePath(rel))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	filled, missing := flinkapi.Substitute(string(b), r.opt.Lab.Env)
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%s: %s uses %s, which .env does not set", what, rel, strings.Join(missing, ", "))
	}
	return flinkapi.Statements(filled), flinkapi.Statements(string(b)), nil
}

// jobName is the name a job runs under on the cluster: its script's
// pipeline.name, else the job's own name.
func (r *Runner) jobName(job string) string {
	if _, shown, err := r.jobScript(job); err == nil {
		if n := flinkapi.PipelineName(shown); n != "" {
			return n
		}
	}
	return job
}

// jobID finds a job's ID on the cluster by its name (the newest active
// one first), falling back on the ID this run submitted.
func (r *Runner) jobID(ctx context.Context, job string) (string, error) {
	jobs, err := r.flink.Jobs(ctx)
	if err != nil {
		return "", err
	}
	name := r.jobName(job)
	if j, ok := flinkapi.FindJob(jobs, name); ok {
		return j.ID, nil
	}
	if id := r.jobIDs[job]; id != "" {
		return id, nil
	}
	var there []string
	for _, j := range jobs {
		there = append(there, fmt.Sprintf("%s (%s)", j.Name, j.State))
	}
	if len(there) == 0 {
		there = []string{"none"}
	}
	return "", fmt.Errorf("no Flink job named %s on the cluster; jobs there: %s", name, strings.Join(there, ", "))
}

// lakeTablesFile is where a rendered lab keeps the DDL of its lake tables
// (render.LakeTablesFile).
const lakeTablesFile = "lake_tables.sql"

// ensureLakeTables creates the lake tables of sql/flink/lake_tables.sql that
// their catalogs lack, in one gateway session: the catalogs and databases
// first, then SHOW TABLES of each database, then the missing CREATE TABLEs.
// Job scripts only name lake tables, because Fluss refuses CREATE TABLE IF
// NOT EXISTS once a table's Paimon table holds data. A lab without the file
// (no lake store) needs nothing. It returns the tables it created.
func (r *Runner) ensureLakeTables(ctx context.Context) ([]string, error) {
	b, err := os.ReadFile(r.opt.Lab.FacePath("sql/flink/" + lakeTablesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	filled, missing := flinkapi.Substitute(string(b), r.opt.Lab.Env)
	if len(missing) > 0 {
		return nil, fmt.Errorf("sql/flink/%s uses %s, which .env does not set", lakeTablesFile, strings.Join(missing, ", "))
	}
	type table struct {
		index           int
		name, statement string
	}
	var tables []table
	var databases []string
	s, err := r.flink.OpenSession(ctx, "labgen lake tables", nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.Close(cctx)
	}()
	failed := func(i int, st string, err error) error {
		return fmt.Errorf("sql/flink/%s: %w", lakeTablesFile, &flinkapi.StatementError{Index: i, Statement: st, Err: err})
	}
	for i, st := range flinkapi.Statements(filled) {
		if cat, db, name, ok := flinkapi.CreatedTable(st); ok {
			tables = append(tables, table{i, cat + "." + db + "." + name, st})
			if d := cat + ".`" + strings.ReplaceAll(db, "`", "``") + "`"; !slices.Contains(databases, d) {
				databases = append(databases, d)
			}
			continue
		}
		// The catalogs and databases the tables live in.
		if _, err := s.Execute(ctx, st, 0); err != nil {
			return nil, failed(i, st, err)
		}
	}
	have := map[string]bool{}
	for _, d := range databases {
		res, err := s.Execute(ctx, "SHOW TABLES IN "+d, 0)
		if err != nil {
			return nil, fmt.Errorf("listing the lake tables: %w", &flinkapi.StatementError{Statement: "SHOW TABLES IN " + d, Err: err})
		}
		cat, _, _ := strings.Cut(d, ".")
		db := strings.ReplaceAll(strings.Trim(strings.TrimPrefix(d, cat+"."), "`"), "``", "`")
		for _, row := range res.Rows {
			if len(row) > 0 {
				if name, ok := row[0].(string); ok {
					have[cat+"."+db+"."+name] = true
				}
			}
		}
	}
	var created []string
	for _, t := range tables {
		if have[t.name] {
			continue
		}
		if _, err := s.Execute(ctx, t.statement, 0); err != nil {
			return created, failed(t.index, t.statement, err)
		}
		created = append(created, t.name)
	}
	return created, nil
}

// usesLakes tells whether a job reads or writes a lake table.
func (r *Runner) usesLakes(j *schemas.Job) bool {
	for _, use := range j.Uses {
		if schemas.IsLake(use.Kind) {
			return true
		}
	}
	if t := r.lab.Table(j.Writes); t != nil {
		for _, s := range t.Stores {
			if schemas.IsLake(s.Kind) {
				return true
			}
		}
	}
	return false
}

// submitJobs makes sure every available streaming job runs: a job found
// running is recorded with its ID, one that is not is submitted through
// the SQL gateway. Failures are recorded with Flink's words.
func (r *Runner) submitJobs(ctx context.Context) {
	if r.lab.Stack.Flink == nil {
		return
	}
	var jobs []record.Job
	var listed []flinkapi.JobSummary
	var listErr error
	if r.flink != nil && r.opt.Endpoints.Flink != "" {
		listed, listErr = r.flink.Jobs(ctx)
	} else {
		listErr = errors.New("no Flink REST URL")
	}
	// The lake tables are created, where missing, before the first job
	// that needs them is submitted.
	lakesDone := false
	var lakeErr error
	memos := readJobMemos(r.opt.Lab)
	for _, j := range r.lab.Jobs {
		if j.Mode != schemas.ModeStreaming {
			continue
		}
		rj := record.Job{Name: j.Name, Mode: j.Mode}
		switch {
		case j.Unavailable != "":
			rj.How, rj.Error = "unavailable", "it "+j.Unavailable
		case listErr != nil:
			rj.How, rj.Error = "failed", "cannot list the cluster's jobs: "+listErr.Error()
		default:
			replaced := ""
			if found, ok := flinkapi.FindJob(listed, r.jobName(j.Name)); ok && flinkapi.Active(found.State) {
				memo, remembered := memos[j.Name]
				sent, _, err := r.jobScript(j.Name)
				if err != nil || !scriptChanged(memo, remembered, found.ID, scriptDigest(sent)) {
					rj.How, rj.ID, rj.Replaced = "running", found.ID, ""
					if remembered && memo.ID == found.ID {
						rj.Replaced = memo.Replaced
					}
					r.opt.Progress.Info(fmt.Sprintf("Flink job %s runs (%s, %s)", j.Name, found.ID, found.State))
					break
				}
				r.opt.Progress.Info(fmt.Sprintf("Flink job %s runs (%s) from a script that differs from sql/flink/%s.sql as rendered now: cancelling it to submit it again", j.Name, found.ID, j.Name))
				if err := r.cancelForResubmit(ctx, found.ID); err != nil {
					rj.How, rj.ID, rj.Error = "failed", found.ID, r.masker.MaskString("its script changed, but cancelling the running job failed: "+err.Error())
					r.opt.Progress.Info("Flink job " + j.Name + " was not submitted again: " + firstLineOf(rj.Error))
					break
				}
				replaced = found.ID
			}
			if r.usesLakes(j) && !lakesDone {
				lakesDone = true
				lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
				created, err := r.ensureLakeTables(lctx)
				cancel()
				lakeErr = err
				if len(created) > 0 {
					r.opt.Progress.Info("created the missing lake tables " + strings.Join(created, ", "))
				}
			}
			if lakeErr != nil && r.usesLakes(j) {
				rj.How, rj.Error = "failed", r.masker.MaskString("the lake tables it uses could not be created: "+lakeErr.Error())
				r.opt.Progress.Info("Flink job " + j.Name + " was not submitted: " + firstLineOf(rj.Error))
				break
			}
			r.opt.Progress.Info("submitting Flink job " + j.Name + " through the SQL gateway")
			sent, _, err := r.jobScript(j.Name)
			if err == nil {
				var run *flinkapi.ScriptRun
				sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
				run, err = r.flink.RunScript(sctx, r.jobName(j.Name), sent, 10)
				cancel()
				if err == nil && run.JobID == "" {
					err = errors.New("the script ran but submitted no job")
				}
				if err == nil {
					rj.How, rj.ID = "submitted", run.JobID
					if replaced != "" {
						rj.How, rj.Replaced = "resubmitted", replaced
					}
					memos[j.Name] = jobMemo{ID: run.JobID, Digest: scriptDigest(sent), Submitted: time.Now().UTC(), Replaced: replaced}
					if err := writeJobMemos(r.opt.Lab, memos); err != nil {
						r.opt.Progress.Info("cannot remember job " + j.Name + "'s script (a changed script will not be submitted again): " + err.Error())
					}
				}
			}
			if err != nil {
				rj.How, rj.Error = "failed", r.masker.MaskString(err.Error())
				r.opt.Progress.Info("Flink job " + j.Name + " could not be submitted: " + firstLineOf(rj.Error))
			}
		}
		if rj.ID != "" {
			r.jobIDs[j.Name] = rj.ID
			// A resumed run finds running what an earlier session submitted.
			for _, prev := range r.rec.Jobs {
				if prev.Name == rj.Name && prev.ID == rj.ID && prev.How == "submitted" {
					rj.How = "submitted"
				}
			}
		}
		jobs = append(jobs, rj)
	}
	r.rec.Jobs = jobs
}

// cancelForResubmit cancels a running job and waits until it has ended,
// so that its replacement never writes beside it.
func (r *Runner) cancelForResubmit(ctx context.Context, id string) error {
	if err := r.flink.Cancel(ctx, id); err != nil {
		return err
	}
	return r.awaitJobState(ctx, id, func(s string) bool { return !flinkapi.Active(s) }, time.Minute)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// tally is the outcome of a lab step that runs a list of things (smoke
// checks, bounded jobs), one value and table row each: the step's value is
// {passed, <list>, failed}, its counts "<list>" and "failed <list>", and
// it fails when any of them failed.
//
// failures are what failed, each in full: the table cuts its cells, the
// step's error must not.
func tally(ran *record.Ran, t record.Table, list string, vals []cty.Value, failed int, what string, failures []string) outcome {
	v := cty.ObjectVal(map[string]cty.Value{"passed": cty.BoolVal(failed == 0), list: cty.TupleVal(vals),
		"failed": cty.NumberIntVal(int64(failed))})
	out := outcome{ran: ran, value: v, output: &record.Output{Tables: []record.Table{t}},
		counts: map[string]int64{list: int64(len(vals)), "failed " + list: int64(failed)}}
	if failed > 0 {
		msg := fmt.Sprintf("%d of %d %s failed", failed, len(vals), what)
		if len(failures) > 0 {
			msg += ":\n\n" + strings.Join(failures, "\n\n")
		}
		out.err = errors.New(msg)
	}
	return out
}

func qualify(db, name string) string {
	if db == "" {
		return name
	}
	return db + "." + name
}

// runBatch runs the lab's bounded jobs through the SQL gateway, each
// waiting for its job to finish (their scripts set table.dml-sync) and for
// its result to reach ClickHouse. The jobs are independent reads of the
// lake tables, so they run side by side, as many at once as the cluster has
// free slots (each runs at parallelism 1); the table lists them in the
// lab's order.
func (r *Runner) runBatch(ctx context.Context, s *schemas.Step) outcome {
	ctx, cancel := context.WithTimeout(ctx, r.stepTimeout(s, defaultBatchTimeout))
	defer cancel()
	ran := &record.Ran{What: "lab", Endpoint: record.URL(r.opt.Endpoints.Gateway)}
	if r.flink == nil || r.opt.Endpoints.Gateway == "" {
		return outcome{ran: ran, err: errors.New("no Flink SQL gateway: the lab's stack has no flink and --gateway was not given")}
	}
	// The bounded jobs read lake tables; create those missing first.
	created, err := r.ensureLakeTables(ctx)
	if err != nil {
		ran.Detail = "Creating the missing lake tables (sql/flink/" + lakeTablesFile + ") before the bounded jobs failed; no bounded job ran."
		return outcome{ran: ran, err: err}
	}
	var jobs []*schemas.Job
	for _, j := range r.lab.Jobs {
		if j.Mode == schemas.ModeBatch && j.Unavailable == "" {
			jobs = append(jobs, j)
		}
	}
	width := r.batchWidth(ctx, len(jobs))
	results := make([]batchResult, len(jobs))
	sem := make(chan struct{}, width)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = r.batchJob(ctx, j)
		}()
	}
	wg.Wait()

	t := record.Table{Columns: []string{"job", "job id", "state", "took", "result in ClickHouse", "error"}}
	var vals []cty.Value
	var names, scripts, waits, failures []string
	failed := 0
	for i, j := range jobs {
		b := results[i]
		names = append(names, j.Name)
		if b.wait != "" {
			waits = append(waits, b.wait)
		}
		if b.script != "" {
			scripts = append(scripts, b.script)
		}
		if b.err != "" {
			failed++
			failures = append(failures, j.Name+": "+b.err)
		}
		t.Rows = append(t.Rows, []string{j.Name, b.id, b.state, record.Duration(b.took.Milliseconds()), b.landed, b.err})
		vals = append(vals, cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal(j.Name), "job_id": cty.StringVal(b.id), "state": cty.StringVal(b.state),
			"duration_ms": cty.NumberIntVal(b.took.Milliseconds()), "error": cty.StringVal(b.err),
			"result_before": b.before, "result_after": b.after}))
	}
	ran.Detail = "Bounded jobs through the SQL gateway: " + strings.Join(names, ", ") + "."
	if len(jobs) > 1 {
		ran.Detail += fmt.Sprintf(" They ran %d at a time.", width)
	}
	if len(waits) > 0 {
		ran.Detail += fmt.Sprintf(" After each job finished, waited up to %s for its result to reach ClickHouse (%s changed).", resultWait, strings.Join(waits, ", "))
	}
	if len(names) == 0 {
		ran.Detail = "No bounded job is available in this stack."
	}
	if len(created) > 0 {
		ran.Detail += " First created the missing lake tables " + strings.Join(created, ", ") + " (sql/flink/" + lakeTablesFile + ")."
	}
	ran.SQL = strings.Join(scripts, "\n\n")
	return tally(ran, t, "jobs", vals, failed, "bounded jobs", failures)
}

// batchWidth is how many of n bounded jobs run at once: as many as the
// cluster has free slots, each job taking one; one at a time when the
// JobManager's overview cannot be read.
func (r *Runner) batchWidth(ctx context.Context, n int) int {
	free := 1
	if n > 1 && r.opt.Endpoints.Flink != "" {
		if o, err := r.flink.Overview(ctx); err == nil {
			free = o.SlotsAvailable
		}
	}
	return max(1, min(n, free))
}

// batchResult is what one bounded job of a batch step did.
type batchResult struct {
	id, state, landed, err string
	// script is the job's script as the record shows it; wait the
	// ClickHouse value whose change was awaited.
	script, wait  string
	before, after cty.Value
	took          time.Duration
}

// batchJob runs one bounded job and waits for its result in ClickHouse.
func (r *Runner) batchJob(ctx context.Context, j *schemas.Job) batchResult {
	start := time.Now()
	b := batchResult{before: cty.NullVal(cty.String), after: cty.NullVal(cty.String)}
	// What the job's result looks like in ClickHouse before it runs,
	// so that its arrival can be told (./stream-lab batch does so too).
	table, expr, landing := r.resultVersion(j)
	if landing {
		b.wait = fmt.Sprintf("`%s` of `%s`", expr, table)
		if v, err := r.resultValue(ctx, table, expr); err == nil {
			b.before = cty.StringVal(v)
		}
	}
	what, rel := "job "+j.Name, schemas.JobFile(j.Name)
	if c := r.batchMutant[j.Name]; c != nil {
		what, rel = "control "+c.Name, c.MutantFile()
	}
	sent, shown, err := r.script(what, rel)
	if err == nil {
		b.script = "-- " + rel + "\n" + strings.Join(shown, ";\n") + ";"
		var run *flinkapi.ScriptRun
		run, err = r.flink.RunScript(ctx, r.jobName(j.Name), sent, 10)
		if err == nil {
			b.id = run.JobID
			if b.id == "" {
				err = errors.New("the script ran but submitted no job")
			}
		}
		if err == nil && r.opt.Endpoints.Flink != "" {
			var st *flinkapi.Status
			st, err = r.flink.JobStatus(ctx, b.id, []string{flinkapi.ShowState}, 0)
			if err == nil {
				b.state = st.State
				if b.state != "FINISHED" {
					err = r.jobEnded(ctx, b.id, b.state)
				}
			}
		}
		if err == nil && landing {
			var v string
			v, err = r.awaitResult(ctx, table, expr, b.before)
			if err == nil {
				b.after = cty.StringVal(v)
				b.landed = fmt.Sprintf("%s = %s (was %s)", expr, v, displayOr(b.before, "none"))
			}
		}
	}
	b.took = time.Since(start)
	if err != nil {
		b.err = r.masker.MaskString(err.Error())
	}
	return b
}

// jobEnded is the error of a job that ended in state instead of FINISHED,
// with the job's root exception in full (a job that fails after its
// submission says why only there).
func (r *Runner) jobEnded(ctx context.Context, id, state string) error {
	why, err := r.flink.RootException(ctx, id)
	switch {
	case err != nil:
		return fmt.Errorf("the job ended %s; its exceptions could not be read: %w", state, err)
	case why == "":
		return fmt.Errorf("the job ended %s", state)
	}
	return fmt.Errorf("the job ended %s: %s", state, why)
}

// resultVersion is where a bounded job's result shows in ClickHouse and
// the expression whose change tells that a new result arrived, as
// ./stream-lab batch uses them (schemas.Lab.ResultVersion); ok is false
// also when no ClickHouse is reachable.
func (r *Runner) resultVersion(j *schemas.Job) (table, expr string, ok bool) {
	if r.opt.Endpoints.DB[query.ClickHouse].Addr == "" {
		return "", "", false
	}
	return r.lab.ResultVersion(j)
}

// resultValue is expr over table in ClickHouse, as text.
func (r *Runner) resultValue(ctx context.Context, table, expr string) (string, error) {
	eng, err := r.engine(schemas.EngineClickHouse)
	if err != nil {
		return "", err
	}
	res, err := eng.Query(ctx, "SELECT toString(v) FROM (SELECT "+expr+" AS v FROM "+table+")", query.Limits{MaxRows: 1, Timeout: 20 * time.Second})
	if err != nil {
		return "", err
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return "", fmt.Errorf("%s of %s: no value returned", expr, table)
	}
	s, ok := res.Rows[0][0].(string)
	if !ok {
		return "", fmt.Errorf("%s of %s: %v is not text", expr, table, res.Rows[0][0])
	}
	return s, nil
}

// awaitResult waits until expr over table differs from before (null: the
// table could not be read before), for at most resultWait.
func (r *Runner) awaitResult(ctx context.Context, table, expr string, before cty.Value) (string, error) {
	var last string
	var lastErr error
	v, err := r.eventually(ctx, time.Now(), fmt.Sprintf("%s of %s to change", expr, table), func() (string, error) {
		v, err := r.resultValue(ctx, table, expr)
		last, lastErr = v, err
		switch {
		case err != nil:
			return "", err
		case v == "" || !before.IsNull() && v == before.AsString():
			return "", errors.New("unchanged")
		}
		return v, nil
	})
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if lastErr != nil {
		return "", fmt.Errorf("the job finished, but %s in ClickHouse could not be read within %s: %w", table, resultWait, lastErr)
	}
	return "", fmt.Errorf("the job finished, but after %s %s in ClickHouse still shows %s = %s", resultWait, table, expr, orNone(last))
}

func displayOr(v cty.Value, none string) string {
	if v.IsNull() {
		return none
	}
	return Display(v)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// noteRestarts reads each active job's restarts as e begins, the base of
// its flink steps' restarts_in_experiment. An experiment without a flink
// step reads nothing; a job that cannot be read has no base (all its
// restarts count), which the record shows as they are.
func (r *Runner) noteRestarts(ctx context.Context, e *schemas.Experiment) {
	r.restartBase = nil
	if r.flink == nil || r.opt.Endpoints.Flink == "" || !slices.ContainsFunc(e.Steps, func(s *schemas.Step) bool { return s.Kind == schemas.StepFlink }) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	jobs, err := r.flink.Jobs(ctx)
	if err != nil {
		return
	}
	r.restartBase = map[string]int64{}
	for _, j := range jobs {
		if !flinkapi.Active(j.State) {
			continue
		}
		if st, err := r.flink.JobStatus(ctx, j.ID, []string{flinkapi.ShowRestarts}, 0); err == nil {
			r.restartBase[j.ID] = st.Restarts
		}
	}
}
