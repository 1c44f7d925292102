package runner

import (
	"time"

	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// Progress hears what a run does, for a terminal. Calls come from the
// goroutine that runs the steps.
type Progress interface {
	// Info is a line about the run itself (jobs found or submitted).
	Info(msg string)
	Experiment(e *schemas.Experiment)
	Skipped(e *schemas.Experiment, why string)
	// Step starts a step.
	Step(e *schemas.Experiment, s *schemas.Step)
	// Waiting says the step waits until the given time: for a duration, or
	// between runs of a re-run step (attempt counts them; 0 for a plain
	// wait).
	Waiting(until time.Time, attempt int, what string)
	StepDone(e *schemas.Experiment, s *schemas.Step, r *record.Step)
}

type nopProgress struct{}

func (nopProgress) Info(string)                                               {}
func (nopProgress) Experiment(*schemas.Experiment)                            {}
func (nopProgress) Skipped(*schemas.Experiment, string)                       {}
func (nopProgress) Step(*schemas.Experiment, *schemas.Step)                   {}
func (nopProgress) Waiting(time.Time, int, string)                            {}
func (nopProgress) StepDone(*schemas.Experiment, *schemas.Step, *record.Step) {}
