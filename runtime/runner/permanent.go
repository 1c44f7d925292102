package runner

import (
	"errors"
	"fmt"

	"github.com/labgen/labgen/runtime/query"
)

// fixedError is an error of the runner's own that running the step again
// cannot change within the run (its SQL writes, the run has no such
// endpoint): a wait that re-runs the step stops on it at once.
type fixedError struct {
	why string
	err error
}

func (e *fixedError) Error() string { return e.err.Error() }
func (e *fixedError) Unwrap() error { return e.err }

// fixed marks err as one that re-running the step cannot change; why
// names it in a few words.
func fixed(err error, why string) error { return &fixedError{why: why, err: err} }

// permanent tells whether a step's error is one that waiting cannot
// change, and names it: the runner's own (fixed) or a query's (see
// query.Permanent). Any other error may pass, and a wait keeps waiting.
func permanent(err error) (why string, ok bool) {
	var f *fixedError
	if errors.As(err, &f) {
		return f.why, true
	}
	return query.Permanent(err)
}

// stopWaiting ends a re-running wait on an error waiting cannot change:
// the record says it stopped early, after which run, and why.
func stopWaiting(res outcome, attempt int, err error, why string) outcome {
	res.output.Notes = append(res.output.Notes, fmt.Sprintf("Stopped early, after run %d: %s, which waiting cannot change.", attempt, why))
	res.err = fmt.Errorf("stopped waiting after run %d: %s, which waiting cannot change: %w", attempt, why, err)
	return res
}
