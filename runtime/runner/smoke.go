package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/kafkaread"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// smokeCheck is a smoke check to run: it returns a detail, or why it
// failed. A note is only said.
type smokeCheck struct {
	name string
	note bool
	run  func(ctx context.Context) (string, error)
}

// smokeGo turns one of the lab's smoke checks (schemas.Lab.SmokeChecks)
// into what labgen checks from outside the stack; the rendered
// ./stream-lab smoke implements the same kinds inside it (render's
// smokeScript). A kind missing here fails TestSmokeKinds.
var smokeGo = map[schemas.SmokeKind]func(r *Runner, c schemas.SmokeCheck) []smokeCheck{
	schemas.SmokeServices: (*Runner).smokeServices,
	schemas.SmokeJob: func(r *Runner, c schemas.SmokeCheck) []smokeCheck {
		name := c.Name
		if r.opt.Stack != nil && r.opt.Stack.Face == "compose" {
			name = c.ComposeName()
		}
		return []smokeCheck{{name: name, run: func(ctx context.Context) (string, error) { return r.smokeJob(ctx, c) }}}
	},
	schemas.SmokeGrows: func(r *Runner, c schemas.SmokeCheck) []smokeCheck {
		return []smokeCheck{{name: c.Name, run: func(ctx context.Context) (string, error) {
			before, err := r.count(ctx, schemas.EngineMySQL, c.Table)
			if err != nil {
				return "", err
			}
			// As the script's grows: five seconds apart.
			r.sleep(ctx, growsPause)
			after, err := r.count(ctx, schemas.EngineMySQL, c.Table)
			if err != nil {
				return "", err
			}
			detail := fmt.Sprintf("%d rows, then %d %s later", before, after, growsPause)
			if after <= before {
				return detail, errors.New("the row count did not grow: " + detail)
			}
			return detail, nil
		}}}
	},
	schemas.SmokeRows: func(r *Runner, c schemas.SmokeCheck) []smokeCheck {
		return []smokeCheck{{name: c.Name, run: func(ctx context.Context) (string, error) {
			if c.Store.Kind == schemas.StoreKafka {
				res, err := kafkaread.Tail(ctx, r.opt.Endpoints.Kafka, c.Table, 1, kafkaread.Options{Timeout: 10 * time.Second})
				if err != nil {
					return "", err
				}
				if len(res.Messages) == 0 {
					return "", errors.New("no messages yet")
				}
				return "latest message at " + kafkaTime(res.Messages[0].Timestamp), nil
			}
			n, err := r.count(ctx, c.Store.Kind, c.Table)
			if err == nil && n == 0 {
				err = errors.New("no rows yet")
			}
			return fmt.Sprintf("%d rows", n), err
		}}}
	},
	schemas.SmokeLake: func(r *Runner, c schemas.SmokeCheck) []smokeCheck {
		return []smokeCheck{{name: c.Name, run: func(ctx context.Context) (string, error) { return r.smokeLake(ctx, c) }}}
	},
	schemas.SmokeNote: func(_ *Runner, c schemas.SmokeCheck) []smokeCheck {
		return []smokeCheck{{name: c.Name, note: true}}
	},
}

// growsPause is how far apart a grows check counts.
var growsPause = 5 * time.Second

// smokePlan is the checks labgen smoke runs, from the lab's.
func (r *Runner) smokePlan() []smokeCheck {
	var out []smokeCheck
	for _, c := range r.lab.SmokeChecks() {
		out = append(out, smokeGo[c.Kind](r, c)...)
	}
	return out
}

// smokeServices checks that each engine of the stack that labgen talks
// to answers: what compose's health checks (and the native supervisor's
// probes) say of the services, seen from outside.
func (r *Runner) smokeServices(schemas.SmokeCheck) []smokeCheck {
	var out []smokeCheck
	s := r.lab.Stack
	for _, engine := range []string{schemas.EngineMySQL, schemas.EngineClickHouse} {
		if !s.Has(engine) {
			continue
		}
		out = append(out, smokeCheck{name: labdir.Title(engine) + " answers", run: func(ctx context.Context) (string, error) {
			eng, err := r.engine(engine)
			if err != nil {
				return "", err
			}
			if _, err := eng.Query(ctx, "SELECT 1", query.Limits{MaxRows: 1, Timeout: 20 * time.Second}); err != nil {
				return "", err
			}
			return "SELECT 1 answered", nil
		}})
	}
	if s.Kafka != nil {
		out = append(out, smokeCheck{name: "Kafka answers", run: func(ctx context.Context) (string, error) {
			if len(r.opt.Endpoints.Kafka) == 0 {
				return "", errors.New("no Kafka address")
			}
			cl, err := kgo.NewClient(kgo.SeedBrokers(r.opt.Endpoints.Kafka...), kgo.DialTimeout(5*time.Second))
			if err != nil {
				return "", err
			}
			defer cl.Close()
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := cl.Ping(pctx); err != nil {
				return "", err
			}
			return "a broker answered at " + strings.Join(r.opt.Endpoints.Kafka, ","), nil
		}})
	}
	if s.Flink != nil {
		out = append(out, smokeCheck{name: "Flink JobManager answers", run: func(ctx context.Context) (string, error) {
			if r.flink == nil {
				return "", errors.New("no Flink URL")
			}
			ov, err := r.flink.Overview(ctx)
			if err != nil {
				return "", err
			}
			detail := fmt.Sprintf("Flink %s, %d TaskManager(s), %d of %d slots free", ov.FlinkVersion, ov.TaskManagers, ov.SlotsAvailable, ov.SlotsTotal)
			if ov.TaskManagers == 0 {
				return detail, errors.New("no TaskManager is registered")
			}
			return detail, nil
		}})
	}
	return out
}

// smokeJob checks that a job of one of the check's names is RUNNING, its
// vertices too. A lab's job is found by its pipeline.name.
func (r *Runner) smokeJob(ctx context.Context, c schemas.SmokeCheck) (string, error) {
	if r.flink == nil {
		return "", errors.New("no Flink URL")
	}
	var id string
	if c.Job != "" {
		var err error
		if id, err = r.jobID(ctx, c.Job); err != nil {
			return "", err
		}
	} else {
		jobs, err := r.flink.Jobs(ctx)
		if err != nil {
			return "", err
		}
		for _, n := range c.Names {
			if j, ok := flinkapi.FindJob(jobs, n); ok && (id == "" || flinkapi.Active(j.State)) {
				id = j.ID
			}
		}
		if id == "" {
			return "", fmt.Errorf("no Flink job named %s on the cluster", strings.Join(c.Names, " or "))
		}
	}
	st, err := r.flink.JobStatus(ctx, id, []string{flinkapi.ShowState, flinkapi.ShowVertices}, 0)
	if err != nil {
		return "", err
	}
	detail := st.State + " (" + id + ")"
	if st.State != "RUNNING" {
		if why, err := r.flink.RootException(ctx, id); err == nil && why != "" {
			return detail, fmt.Errorf("job %s is %s: %s", id, st.State, why)
		}
		return detail, fmt.Errorf("job %s is %s", id, st.State)
	}
	// A job reports RUNNING while its tasks wait for slots (a
	// TaskManager is gone): count the vertices too.
	for _, v := range st.Vertices {
		if v.Status != "RUNNING" {
			return detail, fmt.Errorf("job %s is RUNNING but its vertex %q is %s", id, v.Name, v.Status)
		}
	}
	return detail, nil
}

// warehouse is a face's Services that can look into the lake warehouse
// (native.Client on this machine, compose.Compose in the JobManager's
// container).
type warehouse interface {
	WarehouseFile(ctx context.Context, dir, pattern string) (string, error)
}

// smokeLake looks for the lake table's files in the warehouse, through
// the face's Services.
func (r *Runner) smokeLake(ctx context.Context, c schemas.SmokeCheck) (string, error) {
	w, ok := r.opt.Compose.(warehouse)
	if !ok {
		why := "this face cannot look into its lake warehouse"
		if r.opt.ComposeErr != nil {
			why += ": " + r.opt.ComposeErr.Error()
		}
		return "", errors.New(why)
	}
	return w.WarehouseFile(ctx, c.Dir, c.Pattern)
}

// count is the number of rows of a MySQL or ClickHouse table.
func (r *Runner) count(ctx context.Context, engine, table string) (int64, error) {
	eng, err := r.engine(engine)
	if err != nil {
		return 0, err
	}
	sql := "SELECT COUNT(*) FROM " + table
	if engine == schemas.EngineClickHouse {
		sql = "SELECT count() FROM " + table
	}
	res, err := eng.Query(ctx, sql, query.Limits{MaxRows: 1, Timeout: 20 * time.Second})
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

// check is the outcome of one smoke check.
type check struct {
	name, detail string
	passed, note bool
}

// eventually runs try until it succeeds or until resultWait (from start)
// would be over before the next try, as ./stream-lab's checks wait.
func (r *Runner) eventually(ctx context.Context, start time.Time, what string, try func() (string, error)) (string, error) {
	deadline := start.Add(resultWait)
	for attempt := 1; ; attempt++ {
		detail, err := try()
		if err == nil || ctx.Err() != nil || !time.Now().Add(resultInterval).Before(deadline) {
			return detail, err
		}
		r.opt.Progress.Waiting(time.Now().Add(resultInterval), attempt, fmt.Sprintf("waiting for %s (gives up at %s)", what, deadline.Format("15:04:05")))
		r.sleep(ctx, resultInterval)
	}
}

// runSmoke runs the lab's smoke checks as ./stream-lab smoke does, from
// outside the containers. A check that fails is tried again until it
// passes or resultWait is over.
func (r *Runner) runSmoke(ctx context.Context, s *schemas.Step) outcome {
	ctx, cancel := context.WithTimeout(ctx, r.stepTimeout(s, 3*time.Minute))
	defer cancel()
	ran := &record.Ran{What: "lab", Detail: fmt.Sprintf("Smoke checks: each service answers, each streaming job runs, the producer's tables grow, every store holds data (a failing check is tried again for up to %s).", resultWait)}
	start := time.Now()
	var checks []check
	for _, c := range r.smokePlan() {
		if c.note {
			checks = append(checks, check{name: c.name, note: true})
			continue
		}
		detail, err := r.eventually(ctx, start, c.name, func() (string, error) { return c.run(ctx) })
		ch := check{name: c.name, passed: err == nil, detail: detail}
		if err != nil {
			ch.detail = r.masker.MaskString(err.Error())
		}
		checks = append(checks, ch)
	}
	t := record.Table{Columns: []string{"check", "result", "detail"}}
	var vals []cty.Value
	var failures []string
	failed := 0
	for _, c := range checks {
		if c.note {
			t.Rows = append(t.Rows, []string{c.name, "info", ""})
			continue
		}
		res := "pass"
		if !c.passed {
			res = "FAIL"
			failed++
			failures = append(failures, c.name+": "+c.detail)
		}
		t.Rows = append(t.Rows, []string{c.name, res, c.detail})
		vals = append(vals, cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal(c.name), "passed": cty.BoolVal(c.passed), "detail": cty.StringVal(c.detail)}))
	}
	return tally(ran, t, "checks", vals, failed, "smoke checks", failures)
}
