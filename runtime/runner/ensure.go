package runner

import (
	"context"

	"github.com/labgen/labgen/runtime/record"
)

// EnsureJobs makes every available streaming job of the lab run, as
// labgen run does before its first experiment (and as compose's
// job-submitter does): a job found running is kept, a missing one is
// submitted. It writes no record; the result says what it found or did.
func EnsureJobs(ctx context.Context, opt Options) ([]record.Job, error) {
	opt.SubmitJobs = true
	r, err := New(opt)
	if err != nil {
		return nil, err
	}
	defer r.closeEngines()
	r.submitJobs(ctx)
	return r.rec.Jobs, nil
}

// EnsureLakeTables creates the lab's lake tables that their catalogs lack
// (sql/flink/lake_tables.sql), as the first job submission would, and
// returns those it created. labgen run calls it before the engine check,
// so that the jobs' statements on Fluss tables are planned too.
func EnsureLakeTables(ctx context.Context, opt Options) ([]string, error) {
	r, err := New(opt)
	if err != nil {
		return nil, err
	}
	defer r.closeEngines()
	return r.ensureLakeTables(ctx)
}
