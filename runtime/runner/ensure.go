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
