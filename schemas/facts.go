package schemas

import (
	"strconv"
	"strings"
)

// Facts about a lab that more than one layer needs (the rendered scripts
// and the runtime), computed here once.

// ResultVersion is where a bounded job's result shows in ClickHouse and an
// expression over it that changes with each run: max of the ClickHouse
// store's version column, else of a date or time key column, else
// count(). `stream-lab batch` and `labgen batch` both report it. ok is
// false when the job's table has no ClickHouse store in this stack.
func (l *Lab) ResultVersion(j *Job) (table, expr string, ok bool) {
	t := l.Table(j.Writes)
	if t == nil || l.Stack.ClickHouse == nil {
		return "", "", false
	}
	ch := t.Store(StoreClickHouse)
	if ch == nil {
		return "", "", false
	}
	table = ch.Name
	if ch.Database != "" {
		table = ch.Database + "." + ch.Name
	}
	if ch.Version != "" {
		return table, "max(" + ch.Version + ")", true
	}
	for _, k := range t.Key {
		for _, c := range t.Columns {
			if c.Name == k && (c.Type.Kind == TypeTimestamp || c.Type.Kind == TypeDate) {
				return table, "max(" + k + ")", true
			}
		}
	}
	return table, "count()", true
}

// TieringJobName is the Flink job name of Fluss's lake tiering job (its
// pipeline.name, as the rendered scripts and the native stack submit it).
const TieringJobName = "fluss-tiering"

// TieringJobNames are the names the tiering job may run under: its
// pipeline.name, else the name Fluss gives it (LakeTieringJobBuilder).
// None without Fluss.
func (l *Lab) TieringJobNames() []string {
	if l.Stack.Fluss == nil {
		return nil
	}
	return []string{TieringJobName, "Fluss Lake Tiering Service - " + l.Stack.Fluss.Lake}
}

// SmokeKind is what a smoke check checks. Each kind is implemented twice,
// by the rendered ./stream-lab smoke (inside the compose stack) and by
// labgen smoke (from outside, against either stack); both read the list
// of SmokeChecks, so they check the same things.
type SmokeKind string

// Smoke check kinds.
const (
	// SmokeServices: the stack's services are up (the script: each
	// compose service healthy, each one-shot helper exited 0; labgen: each
	// engine it reaches answers, Flink with a TaskManager).
	SmokeServices SmokeKind = "services"
	// SmokeJob: a streaming job (or Fluss's tiering job) is RUNNING.
	SmokeJob SmokeKind = "job"
	// SmokeGrows: a producer's table in MySQL gains rows.
	SmokeGrows SmokeKind = "grows"
	// SmokeRows: a store holds data (a MySQL or ClickHouse table has rows,
	// a Kafka topic has messages).
	SmokeRows SmokeKind = "rows"
	// SmokeLake: a lake table has files in its warehouse (a Paimon
	// snapshot tiered from Fluss, Iceberg data files).
	SmokeLake SmokeKind = "lake"
	// SmokeNote is not checked, only said (a job unavailable in this
	// stack, a bounded job that writes only when it runs).
	SmokeNote SmokeKind = "note"
)

// SmokeKinds lists every kind; tests of both implementations read it.
var SmokeKinds = []SmokeKind{SmokeServices, SmokeJob, SmokeGrows, SmokeRows, SmokeLake, SmokeNote}

// SmokeCheck is one smoke check. Which fields apply depends on Kind.
type SmokeCheck struct {
	Kind SmokeKind
	// Name is what the check is called on its PASS/FAIL line and in the
	// record (a note's text).
	Name string
	// Job is the lab's job (SmokeJob; "" for the tiering job); Names are
	// the names it may run under on the cluster.
	Job   string
	Names []string
	// Store is the store checked (SmokeGrows, SmokeRows, SmokeLake);
	// Table its qualified name (database.table, or the topic).
	Store *Store
	Table string
	// IfMissing says, on the compose face only, what brings a missing job
	// back (SmokeJob): the job-submitter service. The native and
	// Kubernetes faces have no such service, so their records leave it out.
	IfMissing string
	// Dir is the lake table's directory under the warehouse (SmokeLake,
	// slash-separated, as paimon/… or iceberg/…) and Pattern the name of
	// the files that show it holds data.
	Dir, Pattern string
}

// ComposeName is the check's name as the compose face says it: with
// what brings a missing job back, where there is something to say.
func (c SmokeCheck) ComposeName() string {
	if c.IfMissing == "" {
		return c.Name
	}
	return c.Name + " (" + c.IfMissing + ")"
}

// SmokeChecks are the lab's smoke checks, in the order they run: the
// services, the streaming jobs (and Fluss's tiering job), the producers'
// tables growing, and data in every store a streaming job writes.
func (l *Lab) SmokeChecks() []SmokeCheck {
	s := l.Stack
	out := []SmokeCheck{{Kind: SmokeServices, Name: "the stack's services are up"}}
	if s.Flink != nil {
		for _, j := range l.Jobs {
			switch {
			case j.Unavailable != "":
				out = append(out, SmokeCheck{Kind: SmokeNote, Name: "job " + j.Name + " is unavailable in this stack: it " + j.Unavailable})
			case j.Mode == ModeStreaming:
				out = append(out, SmokeCheck{Kind: SmokeJob, Job: j.Name, Names: []string{j.Name},
					Name:      "Flink job " + j.Name + " is RUNNING",
					IfMissing: "if it is missing, job-submitter submits it again within 30 s: ./stream-lab compose logs job-submitter"})
			}
		}
		if names := l.TieringJobNames(); names != nil {
			out = append(out, SmokeCheck{Kind: SmokeJob, Names: names, Name: "Flink job " + TieringJobName + " (Fluss tiering) is RUNNING"})
		}
	}
	if l.ProducerRuns() {
		grows := map[string]bool{}
		for _, p := range l.Producers {
			if t := l.Table(p.Table); t != nil {
				if ms := t.Store(StoreMySQL); ms != nil {
					grows[t.Name] = true
					out = append(out, SmokeCheck{Kind: SmokeGrows, Store: ms, Table: qualified(ms),
						Name: "producer " + p.Name + " writes MySQL " + ms.Name + " (its row count grows)"})
				}
			}
		}
		// The follow-up tables (payments after orders) fill more slowly:
		// rows at all is what can be told within the wait.
		for _, p := range l.Producers {
			for _, f := range p.Follows {
				t := l.Table(f.Table)
				if t == nil || grows[t.Name] {
					continue
				}
				if ms := t.Store(StoreMySQL); ms != nil {
					grows[t.Name] = true
					out = append(out, SmokeCheck{Kind: SmokeRows, Store: ms, Table: qualified(ms),
						Name: "producer " + p.Name + " writes MySQL " + ms.Name + " (" + f.Name + " rows exist)"})
				}
			}
		}
	}
	// The other MySQL tables (written by another writer, or loaded
	// once): rows at all.
	if s.MySQL != nil {
		covered := map[string]bool{}
		for _, c := range out {
			if c.Store != nil && c.Store.Kind == StoreMySQL {
				covered[c.Table] = true
			}
		}
		for _, t := range l.Tables {
			if ms := t.Store(StoreMySQL); ms != nil && !covered[qualified(ms)] {
				out = append(out, SmokeCheck{Kind: SmokeRows, Store: ms, Table: qualified(ms), Name: "MySQL " + qualified(ms) + " has rows"})
			}
		}
	}
	for _, j := range l.Jobs {
		t := l.Table(j.Writes)
		if t == nil || j.Unavailable != "" {
			continue
		}
		if j.Mode == ModeBatch {
			out = append(out, SmokeCheck{Kind: SmokeNote, Name: "bounded job " + j.Name + " writes " + t.Name + " when it runs: see ./stream-lab batch"})
			continue
		}
		for _, st := range t.Stores {
			switch st.Kind {
			case StoreKafka:
				if s.Kafka != nil {
					out = append(out, SmokeCheck{Kind: SmokeRows, Store: st, Table: st.Name, Name: "Kafka topic " + st.Name + " has messages"})
				}
			case StoreClickHouse:
				if s.ClickHouse != nil {
					out = append(out, SmokeCheck{Kind: SmokeRows, Store: st, Table: qualified(st), Name: "ClickHouse " + qualified(st) + " has rows"})
				}
			default:
				if k := StoreKindOf(st.Kind); k.Lake != nil && s.Has(k.Component) {
					dir, pattern, name := k.Lake.Files(s, st)
					out = append(out, SmokeCheck{Kind: SmokeLake, Store: st, Table: qualified(st),
						Dir: k.Lake.Warehouse + "/" + dir, Pattern: pattern, Name: name})
				}
			}
		}
	}
	return out
}

func qualified(st *Store) string {
	if st.Database == "" {
		return st.Name
	}
	return st.Database + "." + st.Name
}

// CDF is P(X <= v) of a numeric distribution as the producer draws it,
// its { min, max } clamp included (the values beyond pile up at the
// bounds); nil for kinds that are not a continuous law.
func (x *Dist) CDF() func(float64) float64 {
	cdf := distCDF(x)
	if cdf == nil {
		return nil
	}
	return func(v float64) float64 {
		switch {
		case x.Min != nil && v < *x.Min:
			return 0
		case x.Max != nil && v >= *x.Max:
			return 1
		}
		return cdf(v)
	}
}

// String writes a numeric distribution in the lab's words, its clamp
// included: exponential(45, { max = 300 }).
func (x *Dist) String() string {
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	s := describeDist(x)
	if x.Kind == DistUniform || x.Kind == DistUniformInt {
		return s
	}
	var clamp []string
	if x.Min != nil {
		clamp = append(clamp, "min = "+g(*x.Min))
	}
	if x.Max != nil {
		clamp = append(clamp, "max = "+g(*x.Max))
	}
	if len(clamp) > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSuffix(s, ")") + ", { " + strings.Join(clamp, ", ") + " })"
	}
	return s
}

// KafkaTopic is one topic of the lab and its partition count.
type KafkaTopic struct {
	Name       string
	Partitions int
}

// KafkaTopics are the topics of the tables' kafka stores in table order,
// at least one partition each: what compose's kafka-init, the native
// broker and Strimzi's KafkaTopics create.
func (l *Lab) KafkaTopics() []KafkaTopic {
	var out []KafkaTopic
	for _, t := range l.Tables {
		if k := t.Store(StoreKafka); k != nil {
			out = append(out, KafkaTopic{Name: k.Name, Partitions: max(1, k.Partitions)})
		}
	}
	return out
}
