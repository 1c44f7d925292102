package schemas

import (
	"slices"
	"strings"
)

// Downstream is what a job's output reaches: the jobs it feeds (itself
// first, then every job, streaming or batch, that reads a table one of
// them writes) and the names under which those tables are read, each
// table's own and each of its stores' (a ClickHouse table, a topic),
// lower-cased.
type Downstream struct {
	Jobs  []string
	Names []string
}

// DownstreamOf follows job's output through the lab's jobs.
func (l *Lab) DownstreamOf(job string) Downstream {
	var d Downstream
	tables := map[string]bool{}
	queue := []string{job}
	for len(queue) > 0 {
		j := l.Job(queue[0])
		queue = queue[1:]
		if j == nil || slices.Contains(d.Jobs, j.Name) {
			continue
		}
		d.Jobs = append(d.Jobs, j.Name)
		if j.Writes == "" || tables[j.Writes] {
			continue
		}
		tables[j.Writes] = true
		d.Names = append(d.Names, strings.ToLower(j.Writes))
		if t := l.Table(j.Writes); t != nil {
			for _, s := range t.Stores {
				if s.Name != "" {
					d.Names = append(d.Names, strings.ToLower(s.Name))
				}
			}
		}
		for _, o := range l.Jobs {
			if slices.Contains(o.Reads, j.Writes) {
				queue = append(queue, o.Name)
			}
		}
	}
	slices.Sort(d.Names)
	d.Names = slices.Compact(d.Names)
	return d
}

// SeesJob tells whether an experiment may see what job writes: one of its
// steps reads a name the job's output reaches (a query's or its preset's
// SQL naming it, a topic read), shows one of the jobs it feeds (or every
// job), or runs the lab's smoke checks or batch jobs. It errs towards
// yes: a name found anywhere in the SQL counts, so a mutant of the job is
// run only against the experiments that could notice it, and against
// every one of them.
func (l *Lab) SeesJob(e *Experiment, job string) bool {
	d := l.DownstreamOf(job)
	mentions := func(text string) bool {
		text = strings.ToLower(text)
		for _, n := range d.Names {
			if strings.Contains(text, n) {
				return true
			}
		}
		return false
	}
	for _, s := range e.Steps {
		switch {
		case s.Query != nil:
			sql := s.Query.SQL.Source + "\n" + s.Query.SQL.Text
			if p := l.Preset(s.Query.Preset); p != nil {
				sql += "\n" + p.SQL
				for _, n := range p.Needs {
					if slices.Contains(d.Jobs, n) {
						return true
					}
				}
			}
			if mentions(sql) {
				return true
			}
		case s.Kafka != nil:
			if mentions(s.Kafka.Topic) {
				return true
			}
		case s.Flink != nil:
			if s.Flink.Job == "" || slices.Contains(d.Jobs, s.Flink.Job) {
				return true
			}
		case s.Lab != nil:
			return true
		}
	}
	return false
}
