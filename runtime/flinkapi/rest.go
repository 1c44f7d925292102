package flinkapi

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Overview is GET /overview: the cluster at a glance.
type Overview struct {
	TaskManagers   int    `json:"taskmanagers"`
	SlotsTotal     int    `json:"slots-total"`
	SlotsAvailable int    `json:"slots-available"`
	JobsRunning    int    `json:"jobs-running"`
	JobsFinished   int    `json:"jobs-finished"`
	JobsCancelled  int    `json:"jobs-cancelled"`
	JobsFailed     int    `json:"jobs-failed"`
	FlinkVersion   string `json:"flink-version"`
	FlinkCommit    string `json:"flink-commit"`
}

// Overview fetches the cluster overview.
func (c *Client) Overview(ctx context.Context) (*Overview, error) {
	var o Overview
	if err := c.do(ctx, "GET", c.REST, "/overview", nil, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

// JobSummary is one entry of GET /jobs/overview.
type JobSummary struct {
	ID        string `json:"jid"`
	Name      string `json:"name"`
	State     string `json:"state"`
	StartTime int64  `json:"start-time"`
	EndTime   int64  `json:"end-time"`
	Duration  int64  `json:"duration"`
}

// Jobs lists the cluster's jobs, newest first.
func (c *Client) Jobs(ctx context.Context) ([]JobSummary, error) {
	var o struct {
		Jobs []JobSummary `json:"jobs"`
	}
	if err := c.do(ctx, "GET", c.REST, "/jobs/overview", nil, &o); err != nil {
		return nil, err
	}
	sort.SliceStable(o.Jobs, func(i, j int) bool { return o.Jobs[i].StartTime > o.Jobs[j].StartTime })
	return o.Jobs, nil
}

// Active tells whether a job state is one of a job that has not ended.
func Active(state string) bool {
	switch state {
	case "FINISHED", "FAILED", "CANCELED", "SUSPENDED":
		return false
	}
	return true
}

// Ended tells whether a job state is one Flink never leaves (a globally
// terminal state): SUSPENDED is not, a new leader may resume the job.
func Ended(state string) bool {
	switch state {
	case "FINISHED", "FAILED", "CANCELED":
		return true
	}
	return false
}

// FindJob picks the job named name: the newest active one, else the newest
// one of any state. ok is false when no job has that name.
func FindJob(jobs []JobSummary, name string) (JobSummary, bool) {
	var newest *JobSummary
	for i := range jobs {
		j := &jobs[i]
		if j.Name != name {
			continue
		}
		if Active(j.State) && (newest == nil || !Active(newest.State) || j.StartTime > newest.StartTime) {
			newest = j
			continue
		}
		if newest == nil || !Active(newest.State) && j.StartTime > newest.StartTime {
			newest = j
		}
	}
	if newest == nil {
		return JobSummary{}, false
	}
	return *newest, true
}

// Vertex is one vertex of a job's graph with its record counters.
type Vertex struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	Status      string `json:"status"`
	Metrics     struct {
		ReadRecords  int64 `json:"read-records"`
		WriteRecords int64 `json:"write-records"`
		ReadBytes    int64 `json:"read-bytes"`
		WriteBytes   int64 `json:"write-bytes"`
	} `json:"metrics"`
}

// Job is GET /jobs/{id}.
type Job struct {
	ID        string   `json:"jid"`
	Name      string   `json:"name"`
	State     string   `json:"state"`
	Type      string   `json:"job-type"`
	StartTime int64    `json:"start-time"`
	EndTime   int64    `json:"end-time"`
	Duration  int64    `json:"duration"`
	Now       int64    `json:"now"`
	Vertices  []Vertex `json:"vertices"`
}

// Job fetches one job with its vertices.
func (c *Client) Job(ctx context.Context, id string) (*Job, error) {
	var j Job
	if err := c.do(ctx, "GET", c.REST, "/jobs/"+pathEscape(id), nil, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// CheckpointInfo is one checkpoint as the checkpoint statistics show it.
type CheckpointInfo struct {
	ID                 int64  `json:"id"`
	Status             string `json:"status"`
	IsSavepoint        bool   `json:"is_savepoint"`
	TriggerTimestamp   int64  `json:"trigger_timestamp"`
	LatestAckTimestamp int64  `json:"latest_ack_timestamp"`
	EndToEndDuration   int64  `json:"end_to_end_duration"`
	// StateSize is the checkpoint's full state in bytes (with incremental
	// RocksDB checkpoints too, not only what this one uploaded).
	StateSize        int64  `json:"state_size"`
	ExternalPath     string `json:"external_path"`
	RestoreTimestamp int64  `json:"restore_timestamp"`
	FailureTimestamp int64  `json:"failure_timestamp"`
	FailureMessage   string `json:"failure_message"`
}

// Checkpoints is GET /jobs/{id}/checkpoints.
type Checkpoints struct {
	Counts struct {
		Restored   int64 `json:"restored"`
		Total      int64 `json:"total"`
		InProgress int64 `json:"in_progress"`
		Completed  int64 `json:"completed"`
		Failed     int64 `json:"failed"`
	} `json:"counts"`
	Latest struct {
		Completed *CheckpointInfo `json:"completed"`
		Savepoint *CheckpointInfo `json:"savepoint"`
		Failed    *CheckpointInfo `json:"failed"`
		Restored  *CheckpointInfo `json:"restored"`
	} `json:"latest"`
}

// Checkpoints fetches a job's checkpoint statistics. A job that never had
// checkpointing enabled answers 404 in some versions; that is returned as
// zero counts.
func (c *Client) Checkpoints(ctx context.Context, id string) (*Checkpoints, error) {
	var cp Checkpoints
	err := c.do(ctx, "GET", c.REST, "/jobs/"+pathEscape(id)+"/checkpoints", nil, &cp)
	if err != nil && !NotFound(err) {
		return nil, err
	}
	return &cp, nil
}

// ExceptionEntry is one entry of a job's exception history.
type ExceptionEntry struct {
	Name      string `json:"exceptionName"`
	Stack     string `json:"stacktrace"`
	Timestamp int64  `json:"timestamp"`
	TaskName  string `json:"taskName"`
	Endpoint  string `json:"endpoint"`
	Location  string `json:"location"`
	// Concurrent are the task failures behind a global failure.
	Concurrent []ExceptionEntry `json:"concurrentExceptions"`
}

// Exceptions is GET /jobs/{id}/exceptions.
type Exceptions struct {
	RootException *string `json:"root-exception"`
	History       struct {
		Entries   []ExceptionEntry `json:"entries"`
		Truncated bool             `json:"truncated"`
	} `json:"exceptionHistory"`
}

// Exceptions fetches a job's exception history (newest first).
func (c *Client) Exceptions(ctx context.Context, id string, max int) (*Exceptions, error) {
	path := "/jobs/" + pathEscape(id) + "/exceptions"
	if max > 0 {
		path += "?maxExceptions=" + strconv.Itoa(max)
	}
	var e Exceptions
	if err := c.do(ctx, "GET", c.REST, path, nil, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// RootException is why a job failed, as Failure shows it: the root
// exception of /jobs/{id}/exceptions (else the newest entry of its
// history); "" when the job has none.
func (c *Client) RootException(ctx context.Context, id string) (string, error) {
	ex, err := c.Exceptions(ctx, id, DefaultMaxExceptions)
	if err != nil {
		return "", err
	}
	text := ""
	if ex.RootException != nil {
		text = *ex.RootException
	}
	if strings.TrimSpace(text) == "" && len(ex.History.Entries) > 0 {
		text = ex.History.Entries[0].Stack
	}
	if strings.TrimSpace(text) == "" {
		return "", nil
	}
	return Failure(text), nil
}

// JobMetrics fetches named job metrics; a metric Flink does not know is
// missing from the map.
//
// Flink answers from a metric store that a request refreshes only in the
// background (MetricFetcherImpl, at most every
// metrics.fetcher.update-interval): the first answer after a quiet spell
// is as old as the spell (a job seen with 0 restarts after it had
// restored from a checkpoint). So a job's metrics not asked for within
// metricsFresh are asked for twice, metricsSettle apart.
func (c *Client) JobMetrics(ctx context.Context, id string, names ...string) (map[string]string, error) {
	var ms []struct {
		ID    string `json:"id"`
		Value string `json:"value"`
	}
	path := "/jobs/" + pathEscape(id) + "/metrics?get=" + strings.Join(names, ",")
	c.mu.Lock()
	if c.metricsRead == nil {
		c.metricsRead = map[string]time.Time{}
	}
	last, seen := c.metricsRead[id]
	c.metricsRead[id] = time.Now()
	c.mu.Unlock()
	if !seen || time.Since(last) > metricsFresh {
		if err := c.do(ctx, "GET", c.REST, path, nil, &ms); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(metricsSettle):
		}
		ms = nil
	}
	if err := c.do(ctx, "GET", c.REST, path, nil, &ms); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range ms {
		out[m.ID] = m.Value
	}
	return out, nil
}

// metricsFresh is how long after a read of a job's metrics the store
// still answers freshly (the lab's fetcher interval, 5 s); metricsSettle
// how long the background refresh a first read starts takes on a local
// cluster.
const (
	metricsFresh  = 5 * time.Second
	metricsSettle = time.Second
)

// Cancel cancels a job.
func (c *Client) Cancel(ctx context.Context, id string) error {
	return c.do(ctx, "PATCH", c.REST, "/jobs/"+pathEscape(id)+"?mode=cancel", nil, nil)
}

// Status is what a flink step shows of one job: the fields of the result
// value documented in the runtime's README.
type Status struct {
	JobID       string
	Name        string
	State       string
	Type        string
	StartTime   time.Time
	Duration    time.Duration
	Restarts    int64
	Vertices    []VertexStatus
	Checkpoints CheckpointStatus
	Exceptions  []ExceptionStatus
}

// VertexStatus is one vertex with its record counters.
type VertexStatus struct {
	Name       string
	Status     string
	RecordsIn  int64
	RecordsOut int64
	// Backpressure is nil unless asked for (ShowBackpressure), and when
	// Flink had no metrics of the vertex yet.
	Backpressure *Backpressure
}

// Backpressure is a vertex's backpressure as Flink's REST API reports it
// (GET /jobs/{id}/vertices/{vertex}/backpressure): from each subtask's
// backPressuredTimeMsPerSecond, busyTimeMsPerSecond and
// idleTimeMsPerSecond, as the JobManager last fetched them. The ratios are
// of the subtask that shows the most of each.
type Backpressure struct {
	// Level is Flink's: "ok" (ratio at most 0.1), "low" (at most 0.5),
	// "high".
	Level string
	// Ratio is the share of time a subtask was blocked by its output
	// (downstream did not take its records), from 0 to 1.
	Ratio float64
	// Busy is the share of time a subtask was processing, Idle the share
	// it waited for input.
	Busy, Idle float64
}

// vertexBackpressure is the response of the backpressure handler
// (JobVertexBackPressureInfo): status "deprecated" and nothing else while
// the JobManager has no metrics of the vertex.
type vertexBackpressure struct {
	Status   string `json:"status"`
	Level    string `json:"backpressureLevel"`
	Subtasks []struct {
		Ratio float64 `json:"ratio"`
		Busy  float64 `json:"busyRatio"`
		Idle  float64 `json:"idleRatio"`
	} `json:"subtasks"`
}

// VertexBackpressure fetches one vertex's backpressure; nil when Flink
// has no metrics of it yet.
func (c *Client) VertexBackpressure(ctx context.Context, jobID, vertexID string) (*Backpressure, error) {
	var r vertexBackpressure
	if err := c.do(ctx, "GET", c.REST, "/jobs/"+pathEscape(jobID)+"/vertices/"+pathEscape(vertexID)+"/backpressure", nil, &r); err != nil {
		return nil, err
	}
	if r.Status != "ok" || len(r.Subtasks) == 0 {
		return nil, nil
	}
	b := &Backpressure{Level: r.Level}
	for _, s := range r.Subtasks {
		b.Ratio, b.Busy, b.Idle = max(b.Ratio, s.Ratio), max(b.Busy, s.Busy), max(b.Idle, s.Idle)
	}
	return b, nil
}

// CheckpointStatus sums up a job's checkpoints.
type CheckpointStatus struct {
	Completed, Failed, InProgress, Restored int64
	// LatestID is 0 when no checkpoint completed.
	LatestID   int64
	LatestTime time.Time
	// LatestStateSize is the latest completed checkpoint's state, bytes.
	LatestStateSize int64
	// RestoredID is the checkpoint the job last restored from (0: none).
	RestoredID int64
}

// ExceptionStatus is one exception of the job's history.
type ExceptionStatus struct {
	Time     time.Time
	Name     string
	Task     string
	Location string
	// Message is the exception chain without stack frames.
	Message string
}

// What a Status may include.
const (
	ShowState       = "state"
	ShowVertices    = "vertices"
	ShowCheckpoints = "checkpoints"
	ShowRestarts    = "restarts"
	ShowExceptions  = "exceptions"
	// ShowBackpressure asks each vertex's backpressure: one request per
	// vertex, so only when a step shows it.
	ShowBackpressure = "backpressure"
)

// DefaultMaxExceptions is how many exceptions the runtime asks for.
const DefaultMaxExceptions = 10

// JobStatus assembles a job's Status from the REST API. show lists the
// parts wanted (ShowState etc.); the job itself is always fetched, the rest
// only when asked for. At most maxExceptions exceptions are kept.
func (c *Client) JobStatus(ctx context.Context, id string, show []string, maxExceptions int) (*Status, error) {
	want := map[string]bool{}
	for _, s := range show {
		want[s] = true
	}
	j, err := c.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	st := &Status{JobID: j.ID, Name: j.Name, State: j.State, Type: j.Type,
		StartTime: millis(j.StartTime), Duration: time.Duration(j.Duration) * time.Millisecond}
	if want[ShowVertices] {
		for _, v := range j.Vertices {
			vs := VertexStatus{Name: v.Name, Status: v.Status,
				RecordsIn: v.Metrics.ReadRecords, RecordsOut: v.Metrics.WriteRecords}
			if want[ShowBackpressure] {
				if vs.Backpressure, err = c.VertexBackpressure(ctx, id, v.ID); err != nil {
					return nil, err
				}
			}
			st.Vertices = append(st.Vertices, vs)
		}
	}
	if want[ShowCheckpoints] {
		cp, err := c.Checkpoints(ctx, id)
		if err != nil {
			return nil, err
		}
		st.Checkpoints = CheckpointStatus{Completed: cp.Counts.Completed, Failed: cp.Counts.Failed,
			InProgress: cp.Counts.InProgress, Restored: cp.Counts.Restored}
		if l := cp.Latest.Completed; l != nil {
			st.Checkpoints.LatestID = l.ID
			st.Checkpoints.LatestTime = millis(l.LatestAckTimestamp)
			st.Checkpoints.LatestStateSize = l.StateSize
		}
		if l := cp.Latest.Restored; l != nil {
			st.Checkpoints.RestoredID = l.ID
		}
	}
	if want[ShowRestarts] {
		ms, err := c.JobMetrics(ctx, id, "numRestarts")
		if err != nil {
			return nil, err
		}
		if v, ok := ms["numRestarts"]; ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("numRestarts of job %s is %q, not a number", id, v)
			}
			st.Restarts = n
		}
	}
	if want[ShowExceptions] {
		ex, err := c.Exceptions(ctx, id, maxExceptions)
		if err != nil {
			return nil, err
		}
		for i, e := range ex.History.Entries {
			if maxExceptions > 0 && i >= maxExceptions {
				break
			}
			es := ExceptionStatus{Time: millis(e.Timestamp), Name: e.Name, Task: e.TaskName,
				Location: e.Location, Message: firstLines(ExceptionChain(e.Stack), 12)}
			for _, cc := range e.Concurrent {
				if es.Task == "" {
					es.Task, es.Location = cc.TaskName, cc.Location
				}
				if m := firstLines(ExceptionChain(cc.Stack), 6); m != "" && !strings.Contains(es.Message, m) {
					es.Message += "\n" + m
				}
			}
			st.Exceptions = append(st.Exceptions, es)
		}
	}
	return st, nil
}

func millis(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

// ClusterConfig is GET /jobmanager/config: the JobManager's effective
// configuration, key → value.
func (c *Client) ClusterConfig(ctx context.Context) (map[string]string, error) {
	var kv []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	if err := c.do(ctx, "GET", c.REST, "/jobmanager/config", nil, &kv); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(kv))
	for _, e := range kv {
		out[e.Key] = e.Value
	}
	return out, nil
}

// JobConfig is what GET /jobs/{id}/config and /jobs/{id}/checkpoints/config
// say of a running job: how it restarts and checkpoints.
type JobConfig struct {
	// RestartStrategy is Flink's own description ("Restart with fixed
	// delay (5000 ms). #10 restart attempts.").
	RestartStrategy string
	Parallelism     int
	// CheckpointInterval is 0 when the job does not checkpoint.
	CheckpointInterval time.Duration
	CheckpointTimeout  time.Duration
	CheckpointMode     string
}

// JobConfig fetches a job's execution and checkpoint configuration.
func (c *Client) JobConfig(ctx context.Context, id string) (*JobConfig, error) {
	var ec struct {
		Exec struct {
			Restart     string `json:"restart-strategy"`
			Parallelism int    `json:"job-parallelism"`
		} `json:"execution-config"`
	}
	if err := c.do(ctx, "GET", c.REST, "/jobs/"+id+"/config", nil, &ec); err != nil {
		return nil, err
	}
	jc := &JobConfig{RestartStrategy: ec.Exec.Restart, Parallelism: ec.Exec.Parallelism}
	var cc struct {
		Mode     string `json:"mode"`
		Interval int64  `json:"interval"`
		Timeout  int64  `json:"timeout"`
	}
	// A job without checkpointing answers 404 here: not an error of the job.
	if err := c.do(ctx, "GET", c.REST, "/jobs/"+id+"/checkpoints/config", nil, &cc); err == nil {
		jc.CheckpointMode = cc.Mode
		jc.CheckpointInterval = time.Duration(cc.Interval) * time.Millisecond
		jc.CheckpointTimeout = time.Duration(cc.Timeout) * time.Millisecond
	}
	return jc, nil
}

// JVM is what Flink says of one of its JVMs: the JobManager's release
// and options (GET /jobmanager/environment), a TaskManager's maximum
// heap (GET /taskmanagers/{id}).
type JVM struct {
	// Process is "jobmanager" or "taskmanager <id>".
	Process string
	// Version is the Java release ("" where Flink does not say it: a
	// TaskManager's).
	Version string
	// HeapMax is the maximum heap in bytes (0 when not said); Xmx is the
	// JobManager's -Xmx option as given.
	HeapMax int64
	Xmx     string
}

// JVMs asks Flink about the JobManager's JVM and every TaskManager's
// heap. A part that does not answer is left out; the error is the
// first one met.
func (c *Client) JVMs(ctx context.Context) ([]JVM, error) {
	var out []JVM
	var firstErr error
	var env struct {
		JVM struct {
			Version string   `json:"version"`
			Options []string `json:"options"`
		} `json:"jvm"`
	}
	if err := c.do(ctx, "GET", c.REST, "/jobmanager/environment", nil, &env); err != nil {
		firstErr = err
	} else {
		jm := JVM{Process: "jobmanager", Version: env.JVM.Version}
		for _, o := range env.JVM.Options {
			if strings.HasPrefix(o, "-Xmx") {
				jm.Xmx = o
			}
		}
		out = append(out, jm)
	}
	var tms struct {
		TaskManagers []struct {
			ID string `json:"id"`
		} `json:"taskmanagers"`
	}
	if err := c.do(ctx, "GET", c.REST, "/taskmanagers", nil, &tms); err != nil {
		return out, cmp.Or(firstErr, err)
	}
	for _, tm := range tms.TaskManagers {
		var d struct {
			Metrics struct {
				HeapMax int64 `json:"heapMax"`
			} `json:"metrics"`
		}
		if err := c.do(ctx, "GET", c.REST, "/taskmanagers/"+url.PathEscape(tm.ID), nil, &d); err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		out = append(out, JVM{Process: "taskmanager " + tm.ID, HeapMax: d.Metrics.HeapMax})
	}
	return out, firstErr
}
