package runner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/labgen/labgen/runtime/kafkaread"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
)

// versionSQL asks each database engine its release.
var versionSQL = map[string]string{
	query.MySQL:      "SELECT VERSION() AS version",
	query.Postgres:   "SHOW server_version",
	query.ClickHouse: "SELECT version() AS version",
}

// flinkSettings are the cluster settings experiments depend on: how a job
// checkpoints and restarts, how many slots there are, how long Flink
// waits for a slot or a TaskManager before it fails a restart (the
// NoResourceAvailableException of a worker interruption).
var flinkSettings = []string{
	"execution.checkpointing.interval",
	"restart-strategy.type",
	"restart-strategy.fixed-delay.attempts",
	"restart-strategy.fixed-delay.delay",
	"jobmanager.execution.failover-strategy",
	"parallelism.default",
	"taskmanager.numberOfTaskSlots",
	"state.backend.type",
	"slot.request.timeout",
	"heartbeat.timeout",
	"heartbeat.interval",
	// How stale a metric read through the REST API may be: the job
	// metrics a step shows are at most this old.
	"metrics.fetcher.update-interval",
}

// flinkDefaults are the values Flink uses for the settings above that
// its configuration leaves unset (GET /jobmanager/config lists only what
// was set), so a record says what was in force.
var flinkDefaults = map[string]string{
	"metrics.fetcher.update-interval": "10000",
}

// provenance records what ran: each engine's version as the engine
// states it, and the engine settings the experiments depend on. A part
// that does not answer is recorded as such, not left out.
func (r *Runner) provenance(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	versions := append([]record.Version(nil), r.opt.Versions...)
	ask := func(name, source string, get func() (string, error)) {
		v, err := get()
		if err != nil {
			v = "not known: " + short200(oneLine(err.Error()))
		}
		versions = append(versions, record.Version{Name: name, Version: v, Source: source})
	}
	for _, engine := range labdir.Engines {
		if _, ok := r.opt.Endpoints.DB[engine]; !ok {
			continue
		}
		sql := versionSQL[engine]
		ask(labdir.Title(engine), "asked: "+sql, func() (string, error) {
			eng, err := r.engine(engine)
			if err != nil {
				return "", err
			}
			res, err := eng.Query(ctx, sql, query.Limits{MaxRows: 1, MaxBytes: 4096, Timeout: 10 * time.Second})
			if err != nil {
				return "", err
			}
			if len(res.Rows) == 0 || len(res.Rows[0]) == 0 {
				return "", fmt.Errorf("%s returned no row", sql)
			}
			return fmt.Sprint(res.Rows[0][0]), nil
		})
	}
	if len(r.opt.Endpoints.Kafka) > 0 {
		ask("Kafka", "asked: the brokers' API versions (franz-go's guess of the release)", func() (string, error) {
			return kafkaread.BrokerVersion(ctx, r.opt.Endpoints.Kafka)
		})
	}
	if r.flink != nil && r.opt.Endpoints.Flink != "" {
		ask("Flink", "asked: GET /overview", func() (string, error) {
			o, err := r.flink.Overview(ctx)
			if err != nil {
				return "", err
			}
			r.rec.Settings = append(r.rec.Settings,
				record.Setting{Of: "Flink cluster", Name: "TaskManagers", Value: fmt.Sprint(o.TaskManagers), Source: "GET /overview"},
				record.Setting{Of: "Flink cluster", Name: "slots", Value: fmt.Sprint(o.SlotsTotal), Source: "GET /overview"})
			v := o.FlinkVersion
			if o.FlinkCommit != "" {
				v += " (commit " + o.FlinkCommit + ")"
			}
			return v, nil
		})
		r.flinkSettings(ctx)
	}
	r.rec.Versions = versions
	r.rec.JVMs = append([]record.JVM(nil), r.opt.JVMs...)
	if len(r.rec.JVMs) == 0 && r.flink != nil && r.opt.Endpoints.Flink != "" {
		r.rec.JVMs = r.flinkJVMs(ctx)
	}
}

// flinkJVMs are Flink's JVMs as its REST API tells them, for a face that
// cannot look at the processes (compose, Kubernetes): the JobManager's
// release and -Xmx, each TaskManager's maximum heap.
func (r *Runner) flinkJVMs(ctx context.Context) []record.JVM {
	jvms, err := r.flink.JVMs(ctx)
	var out []record.JVM
	for _, j := range jvms {
		row := record.JVM{Service: j.Process, Version: j.Version}
		switch {
		case j.Xmx != "":
			row.Heap, row.Source = record.HeapText(j.Xmx), "asked: GET /jobmanager/environment"
		case j.HeapMax > 0:
			row.Heap = fmt.Sprintf("%.0f MiB (heapMax)", float64(j.HeapMax)/(1<<20))
			row.Source = "asked: GET /taskmanagers/{id}"
		default:
			row.Source = "asked: GET /jobmanager/environment"
		}
		if row.Version == "" {
			row.Version = "not known: Flink does not say a TaskManager's Java release"
		}
		out = append(out, row)
	}
	if err != nil {
		out = append(out, record.JVM{Service: "Flink", Version: "not known: " + short200(oneLine(err.Error())), Source: "asked: GET /jobmanager/environment, /taskmanagers"})
	}
	return out
}

// flinkSettings records the cluster's settings and each running
// streaming job's own restart strategy, parallelism and checkpointing.
func (r *Runner) flinkSettings(ctx context.Context) {
	cfg, err := r.flink.ClusterConfig(ctx)
	if err != nil {
		r.rec.Settings = append(r.rec.Settings, record.Setting{Of: "Flink cluster", Name: "configuration", Value: "not known: " + short200(oneLine(err.Error())), Source: "GET /jobmanager/config"})
	}
	for _, k := range flinkSettings {
		if v, ok := cfg[k]; ok {
			r.rec.Settings = append(r.rec.Settings, record.Setting{Of: "Flink cluster", Name: k, Value: v, Source: "GET /jobmanager/config"})
		} else if d, ok := flinkDefaults[k]; ok && err == nil {
			r.rec.Settings = append(r.rec.Settings, record.Setting{Of: "Flink cluster", Name: k, Value: d, Source: "Flink's default (not set)"})
		}
	}
	jobs := append([]record.Job(nil), r.rec.Jobs...)
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].Name < jobs[j].Name })
	for _, j := range jobs {
		if j.ID == "" {
			continue
		}
		of := "job " + j.Name
		jc, err := r.flink.JobConfig(ctx, j.ID)
		if err != nil {
			r.rec.Settings = append(r.rec.Settings, record.Setting{Of: of, Name: "configuration", Value: "not known: " + short200(oneLine(err.Error())), Source: "GET /jobs/{id}/config"})
			continue
		}
		r.rec.Settings = append(r.rec.Settings,
			record.Setting{Of: of, Name: "restart strategy", Value: jc.RestartStrategy, Source: "GET /jobs/{id}/config"},
			record.Setting{Of: of, Name: "parallelism", Value: fmt.Sprint(jc.Parallelism), Source: "GET /jobs/{id}/config"})
		if jc.CheckpointInterval > 0 {
			r.rec.Settings = append(r.rec.Settings,
				record.Setting{Of: of, Name: "checkpoint interval", Value: jc.CheckpointInterval.String(), Source: "GET /jobs/{id}/checkpoints/config"},
				record.Setting{Of: of, Name: "checkpoint timeout", Value: jc.CheckpointTimeout.String(), Source: "GET /jobs/{id}/checkpoints/config"},
				record.Setting{Of: of, Name: "checkpoint mode", Value: jc.CheckpointMode, Source: "GET /jobs/{id}/checkpoints/config"})
		}
	}
}

// short200 keeps an error of a part that did not answer to one line of
// the record's head.
func short200(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
