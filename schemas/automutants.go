package schemas

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// AutoMutant is a mutant derived from a streaming job's SQL with Flink's
// own parser (prove/flink/prove-flink.sh --mutants), not declared by the
// lab: a LEFT JOIN made INNER, a column made NULL or constant, one key in
// ten lost, the output emitted twice. It runs as a mutant control aimed at
// every expectation that names a control, so the record's mutation score
// says how many of the ways a job can be wrong the lab's claims notice.
type AutoMutant struct {
	Job         string `json:"job"`
	Name        string `json:"name"`
	Operator    string `json:"operator"`
	Description string `json:"description"`
	// Statement is the mutant's INSERT (or statement set), as Flink's
	// parser unparses it: it takes the place of the job's own.
	Statement string `json:"-"`
	// Base and Select are the job's query and the mutant's, both as Flink
	// unparses them, so that their diff shows the mutation alone.
	Base   string `json:"-"`
	Select string `json:"-"`
}

// ControlName is the mutant's control name in the record: the job's
// name, then the operator and what it acts on (trips/null_column:rider).
func (m AutoMutant) ControlName() string { return m.Job + "/" + m.Name }

// ReadAutoMutants reads the output of prove-flink.sh --mutants: one JSON
// document per job. It keeps the mutants Flink planned and that are not
// equivalent to the job; skipped says, for each one left out, why.
func ReadAutoMutants(r io.Reader) (ms []AutoMutant, skipped []string, err error) {
	dec := json.NewDecoder(r)
	for {
		var doc struct {
			Job     string `json:"job"`
			Select  string `json:"select"`
			Mutants []struct {
				Name        string `json:"name"`
				Operator    string `json:"operator"`
				Description string `json:"description"`
				Skipped     string `json:"skipped"`
				Equivalent  bool   `json:"equivalent"`
				Reason      string `json:"equivalent_reason"`
				Select      string `json:"select"`
				SQL         string `json:"sql"`
			} `json:"mutants"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("reading the mutants: %w", err)
		}
		if doc.Job == "" {
			continue // a setup file (lake tables): no job, no mutants
		}
		for _, m := range doc.Mutants {
			switch {
			case m.Skipped != "":
				skipped = append(skipped, fmt.Sprintf("%s/%s: %s", doc.Job, m.Name, m.Skipped))
			case m.Equivalent:
				skipped = append(skipped, fmt.Sprintf("%s/%s: equivalent (%s)", doc.Job, m.Name, m.Reason))
			case strings.TrimSpace(m.SQL) == "":
				skipped = append(skipped, fmt.Sprintf("%s/%s: no SQL", doc.Job, m.Name))
			default:
				ms = append(ms, AutoMutant{Job: doc.Job, Name: m.Name, Operator: m.Operator, Description: m.Description,
					Statement: strings.TrimSpace(m.SQL), Base: doc.Select, Select: m.Select})
			}
		}
	}
	return ms, skipped, nil
}

// AddAutoMutants adds each mutant to the lab as a mutant control of its
// job, and names it in every expectation that names a control (the
// measuring ones: a sanity check is not asked to notice anything) in an
// experiment that may see the job's output (SeesJob): the others would
// run under it for nothing. A
// mutant of a job the lab does not run as a streaming job is an error.
func (l *Lab) AddAutoMutants(ms []AutoMutant) error {
	for _, m := range ms {
		job := l.Job(m.Job)
		if job == nil || job.Mode == ModeBatch {
			return fmt.Errorf("mutant %s: the lab has no streaming job %q", m.ControlName(), m.Job)
		}
		if l.Control(m.ControlName()) != nil {
			return fmt.Errorf("mutant %s: the lab has a control of that name already", m.ControlName())
		}
		mj := *job
		mj.Query = m.Statement
		mj.QueryFile, mj.QuerySource = "", nil
		am := m
		l.Controls = append(l.Controls, &Control{Name: m.ControlName(), Title: m.Description,
			Text: "An automatic mutant of " + m.Job + " (" + m.Operator + "), derived with Flink's parser.", Mutant: &mj, Auto: &am})
	}
	for _, e := range l.Experiments {
		sees := map[string]bool{}
		for _, s := range e.Steps {
			for _, x := range s.Expects {
				if len(x.Detects) == 0 {
					continue
				}
				for _, m := range ms {
					seen, ok := sees[m.Job]
					if !ok {
						seen = l.SeesJob(e, m.Job)
						sees[m.Job] = seen
					}
					if seen && !slices.Contains(x.Detects, m.ControlName()) {
						x.Detects = append(x.Detects, m.ControlName())
					}
				}
			}
		}
	}
	return nil
}
