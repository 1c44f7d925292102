package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/kafkaread"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// jobScript reads sql/flink/<job>.sql, fills in ${NAME} from .env, and
// returns the statements as sent and as recorded (placeholders kept).
func (r *Runner) jobScript(job string) (sent, shown []string, err error) {
	p := filepath.Join(r.opt.Lab.Dir, "sql", "flink", job+".sql")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, fmt.Errorf("job %s: %w", job, err)
	}
	filled, missing := flinkapi.Substitute(string(b), r.opt.Lab.Env)
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("job %s: sql/flink/%s.sql uses %s, which .env does not set", job, job, strings.Join(missing, ", "))
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
			if found, ok := flinkapi.FindJob(listed, r.jobName(j.Name)); ok && flinkapi.Active(found.State) {
				rj.How, rj.ID = "running", found.ID
				r.opt.Progress.Info(fmt.Sprintf("Flink job %s runs (%s, %s)", j.Name, found.ID, found.State))
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

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// check is one smoke check.
type check struct {
	name, detail string
	passed       bool
}

// runSmoke checks the lab as ./stream-lab smoke does, from outside the
// containers: each service answers, each streaming job runs, and data
// reached every store the lab declares.
func (r *Runner) runSmoke(ctx context.Context, s *schemas.Step) outcome {
	ctx, cancel := context.WithTimeout(ctx, r.stepTimeout(s, 3*time.Minute))
	defer cancel()
	ran := &record.Ran{What: "lab", Detail: "Smoke checks: each service answers, each streaming job runs, every store holds data."}
	var checks []check
	add := func(name string, err error, detail string) {
		c := check{name: name, passed: err == nil, detail: detail}
		if err != nil {
			c.detail = r.masker.MaskString(err.Error())
		}
		checks = append(checks, c)
	}
	lab := r.lab
	qlim := query.Limits{MaxRows: 1, Timeout: 20 * time.Second}
	count := func(engine, table string) (int64, error) {
		eng, err := r.engine(engine)
		if err != nil {
			return 0, err
		}
		sql := "SELECT COUNT(*) FROM " + table
		if engine == schemas.EngineClickHouse {
			sql = "SELECT count() FROM " + table
		}
		res, err := eng.Query(ctx, sql, qlim)
		if err != nil {
			return 0, err
		}
		if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			return 0, errors.New("no count returned")
		}
		v := goValue(res.Rows[0][0])
		if v.Type() != cty.Number {
			return 0, fmt.Errorf("count is %s", Display(v))
		}
		n, _ := v.AsBigFloat().Int64()
		return n, nil
	}
	hasRows := func(engine, table string) {
		n, err := count(engine, table)
		if err == nil && n == 0 {
			err = errors.New("no rows yet")
		}
		add(fmt.Sprintf("%s %s has rows", engine, table), err, fmt.Sprintf("%d rows", n))
	}
	for _, t := range lab.Tables {
		for _, st := range t.Stores {
			switch {
			case st.Kind == schemas.StoreMySQL && lab.Stack.MySQL != nil:
				hasRows(schemas.EngineMySQL, qualify(st.Database, st.Name))
			case st.Kind == schemas.StoreClickHouse && lab.Stack.ClickHouse != nil && r.writtenByStreaming(t.Name):
				hasRows(schemas.EngineClickHouse, qualify(st.Database, st.Name))
			case st.Kind == schemas.StoreKafka && lab.Stack.Kafka != nil && r.writtenByStreaming(t.Name):
				res, err := kafkaread.Tail(ctx, r.opt.Endpoints.Kafka, st.Name, 1, kafkaread.Options{Timeout: 10 * time.Second})
				detail := ""
				if err == nil && len(res.Messages) == 0 {
					err = errors.New("no messages yet")
				} else if err == nil {
					detail = "latest message at " + kafkaTime(res.Messages[0].Timestamp)
				}
				add("Kafka topic "+st.Name+" has messages", err, detail)
			}
		}
	}
	if lab.Stack.Flink != nil {
		if r.flink == nil {
			add("Flink answers", errors.New("no Flink URL"), "")
		} else {
			ov, err := r.flink.Overview(ctx)
			detail := ""
			if err == nil {
				detail = fmt.Sprintf("Flink %s, %d TaskManager(s), %d of %d slots free", ov.FlinkVersion, ov.TaskManagers, ov.SlotsAvailable, ov.SlotsTotal)
				if ov.TaskManagers == 0 {
					err = errors.New("no TaskManager is registered")
				}
			}
			add("Flink JobManager answers", err, detail)
			for _, j := range lab.Jobs {
				if j.Mode != schemas.ModeStreaming || j.Unavailable != "" {
					continue
				}
				id, err := r.jobID(ctx, j.Name)
				detail := ""
				if err == nil {
					var st *flinkapi.Status
					st, err = r.flink.JobStatus(ctx, id, []string{flinkapi.ShowState}, 0)
					if err == nil {
						detail = st.State + " (" + id + ")"
						if st.State != "RUNNING" {
							err = fmt.Errorf("job %s is %s", id, st.State)
						}
					}
				}
				add("Flink job "+j.Name+" is RUNNING", err, detail)
			}
		}
	}
	t := record.Table{Columns: []string{"check", "result", "detail"}}
	var vals []cty.Value
	failed := 0
	for _, c := range checks {
		res := "pass"
		if !c.passed {
			res = "FAIL"
			failed++
		}
		t.Rows = append(t.Rows, []string{c.name, res, c.detail})
		vals = append(vals, cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal(c.name), "passed": cty.BoolVal(c.passed), "detail": cty.StringVal(c.detail)}))
	}
	return tally(ran, t, "checks", vals, failed, "smoke checks")
}

// tally is the outcome of a lab step that runs a list of things (smoke
// checks, bounded jobs), one value and table row each: the step's value is
// {passed, <list>, failed}, its counts "<list>" and "failed <list>", and
// it fails when any of them failed.
func tally(ran *record.Ran, t record.Table, list string, vals []cty.Value, failed int, what string) outcome {
	v := cty.ObjectVal(map[string]cty.Value{"passed": cty.BoolVal(failed == 0), list: cty.TupleVal(vals),
		"failed": cty.NumberIntVal(int64(failed))})
	out := outcome{ran: ran, value: v, output: &record.Output{Tables: []record.Table{t}},
		counts: map[string]int64{list: int64(len(vals)), "failed " + list: int64(failed)}}
	if failed > 0 {
		out.err = fmt.Errorf("%d of %d %s failed", failed, len(vals), what)
	}
	return out
}

// writtenByStreaming tells whether a streaming job that can run writes
// the table (only then must its stores hold data at smoke time).
func (r *Runner) writtenByStreaming(table string) bool {
	for _, j := range r.lab.Jobs {
		if j.Writes == table && j.Mode == schemas.ModeStreaming && j.Unavailable == "" {
			return true
		}
	}
	return false
}

func qualify(db, name string) string {
	if db == "" {
		return name
	}
	return db + "." + name
}

// runBatch runs the lab's bounded jobs through the SQL gateway, one after
// the other, each waiting for its job to finish (their scripts set
// table.dml-sync).
func (r *Runner) runBatch(ctx context.Context, s *schemas.Step) outcome {
	ctx, cancel := context.WithTimeout(ctx, r.stepTimeout(s, defaultBatchTimeout))
	defer cancel()
	ran := &record.Ran{What: "lab", Endpoint: record.URL(r.opt.Endpoints.Gateway)}
	if r.flink == nil || r.opt.Endpoints.Gateway == "" {
		return outcome{ran: ran, err: errors.New("no Flink SQL gateway: the lab's stack has no flink and --gateway was not given")}
	}
	t := record.Table{Columns: []string{"job", "job id", "state", "took", "error"}}
	var vals []cty.Value
	var names, scripts []string
	failed := 0
	for _, j := range r.lab.Jobs {
		if j.Mode != schemas.ModeBatch || j.Unavailable != "" {
			continue
		}
		names = append(names, j.Name)
		start := time.Now()
		state, id, errText := "", "", ""
		sent, shown, err := r.jobScript(j.Name)
		if err == nil {
			scripts = append(scripts, "-- sql/flink/"+j.Name+".sql\n"+strings.Join(shown, ";\n")+";")
			var run *flinkapi.ScriptRun
			run, err = r.flink.RunScript(ctx, r.jobName(j.Name), sent, 10)
			if err == nil {
				id = run.JobID
				if id == "" {
					err = errors.New("the script ran but submitted no job")
				}
			}
			if err == nil && r.opt.Endpoints.Flink != "" {
				var st *flinkapi.Status
				st, err = r.flink.JobStatus(ctx, id, []string{flinkapi.ShowState}, 0)
				if err == nil {
					state = st.State
					if state != "FINISHED" {
						err = fmt.Errorf("the job ended %s", state)
					}
				}
			}
		}
		took := time.Since(start)
		if err != nil {
			failed++
			errText = r.masker.MaskString(err.Error())
		}
		t.Rows = append(t.Rows, []string{j.Name, id, state, record.Duration(took.Milliseconds()), errText})
		vals = append(vals, cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal(j.Name), "job_id": cty.StringVal(id), "state": cty.StringVal(state),
			"duration_ms": cty.NumberIntVal(took.Milliseconds()), "error": cty.StringVal(errText)}))
	}
	ran.Detail = "Bounded jobs through the SQL gateway: " + strings.Join(names, ", ") + "."
	if len(names) == 0 {
		ran.Detail = "No bounded job is available in this stack."
	}
	ran.SQL = strings.Join(scripts, "\n\n")
	return tally(ran, t, "jobs", vals, failed, "bounded jobs")
}
