package schemas

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// The model below is the lab after loading: variables applied, references
// resolved to names, SQL files inlined. Every element keeps the range it was
// declared at (never serialised), and the whole is what lab.json carries:
// the runtime, producer and console read it back with ReadLabJSON and never
// see HCL. Values that depend on what a run captures stay expressions
// (Expr) and are evaluated by the runtime with RunContext.

// Lab is one lab.
type Lab struct {
	Name        string        `json:"name"`
	Title       string        `json:"title"`
	Description string        `json:"description,omitempty"`
	Seed        int64         `json:"seed"`
	Variables   []*Variable   `json:"variables"`
	Stack       *Stack        `json:"stack"`
	Tables      []*Table      `json:"tables"`
	Producers   []*Producer   `json:"producers"`
	Jobs        []*Job        `json:"jobs"`
	Presets     []*Preset     `json:"presets"`
	Experiments []*Experiment `json:"experiments"`
	// Controls are the lab's negative controls (control blocks).
	Controls []*Control `json:"controls,omitempty"`

	// Dir is the lab's source directory as the user named it.
	Dir       string    `json:"-"`
	DeclRange hcl.Range `json:"-"`
}

// Variable is an input of the lab with its resolved value.
type Variable struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Type        string          `json:"type"`
	Value       json.RawMessage `json:"value"`
	// Source says where the value came from: default, env, var-file, var.
	Source    string    `json:"source"`
	DeclRange hcl.Range `json:"-"`
}

// Stack lists the components the lab runs; a nil component is not run.
type Stack struct {
	MySQL      *MySQL      `json:"mysql,omitempty"`
	Postgres   *Postgres   `json:"postgres,omitempty"`
	Kafka      *Kafka      `json:"kafka,omitempty"`
	Flink      *Flink      `json:"flink,omitempty"`
	ClickHouse *ClickHouse `json:"clickhouse,omitempty"`
	Fluss      *Fluss      `json:"fluss,omitempty"`
	Iceberg    *Iceberg    `json:"iceberg,omitempty"`
	Paimon     *Paimon     `json:"paimon,omitempty"`
	KafkaUI    *KafkaUI    `json:"kafka_ui,omitempty"`
	Console    *Console    `json:"console,omitempty"`
	BatchLoop  *BatchLoop  `json:"batch_loop,omitempty"`
	// Disabled names components declared with enabled = false, so that
	// what needs them can say why it is unavailable.
	Disabled []string `json:"disabled,omitempty"`
	// Images are every image the stack pulls or builds on, as render
	// resolved them (labgen.lock lists the same); the runtime copies them
	// into a record instead of deriving them again.
	Images    []Image   `json:"images,omitempty"`
	DeclRange hcl.Range `json:"-"`
}

// Store kinds: where a table lives.
const (
	StoreMySQL      = "mysql"
	StorePostgres   = "postgres"
	StoreKafka      = "kafka"
	StoreClickHouse = "clickhouse"
	StoreFluss      = "fluss"
	StoreIceberg    = "iceberg"
	StorePaimon     = "paimon"
)

// Table is one schema, declared once and rendered into each store's dialect.
type Table struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Columns     []*Column `json:"columns"`
	Key         []string  `json:"key"`
	Stores      []*Store  `json:"stores"`
	// Time declares the table's time attributes for the Flink jobs that
	// read it; a store's own Time replaces it for that store.
	Time      *TimeAttrs `json:"time,omitempty"`
	DeclRange hcl.Range  `json:"-"`
}

// TimeAttrs are the time attributes Flink sees on a table it reads: an
// event-time column with the lateness its watermark allows, and a
// processing-time column computed by Flink (not stored anywhere).
type TimeAttrs struct {
	Event      string `json:"event,omitempty"`
	Lateness   string `json:"lateness,omitempty"`
	Processing string `json:"processing,omitempty"`
}

// Column is one column of a table.
type Column struct {
	Name        string      `json:"name"`
	Type        LogicalType `json:"type"`
	Nullable    bool        `json:"nullable,omitempty"`
	Description string      `json:"description,omitempty"`
	DeclRange   hcl.Range   `json:"-"`
}

// Store is one place a table lives.
type Store struct {
	Kind string `json:"kind"`
	// Database is the MySQL / ClickHouse database or the catalog database
	// (Fluss, Iceberg); empty for Kafka.
	Database string `json:"database,omitempty"`
	// Name is the physical table name, or the topic for Kafka.
	Name string `json:"name"`
	// Partitions of a Kafka topic.
	Partitions int `json:"partitions,omitempty"`
	// Version is the ClickHouse ReplacingMergeTree version column.
	Version string `json:"version,omitempty"`
	// Arrival is a column the ClickHouse table adds, filled with the time
	// each row was inserted (DEFAULT now64(3)), for lags from the rows'
	// own timestamps; empty for none.
	Arrival string `json:"arrival,omitempty"`
	// Ingest names the store ClickHouse reads from (kafka), if any.
	Ingest string `json:"ingest,omitempty"`
	// Time replaces the table's time attributes for this store.
	Time *TimeAttrs `json:"time,omitempty"`
	// AppendOnly says every row of the store is new: nothing is updated
	// or deleted. Flink then reads it as an insert-only stream (MySQL CDC
	// as append-only, Kafka with the plain kafka connector) and writes a
	// Kafka store with the kafka connector, not upsert-kafka.
	AppendOnly bool      `json:"append_only,omitempty"`
	DeclRange  hcl.Range `json:"-"`
}

// TimeOf returns the time attributes Flink sees when it reads store s of t.
func (t *Table) TimeOf(s *Store) *TimeAttrs {
	if s != nil && s.Time != nil {
		return s.Time
	}
	return t.Time
}

// Producer writes a table continuously with declared value distributions.
type Producer struct {
	Name      string    `json:"name"`
	Table     string    `json:"table"`
	Rate      float64   `json:"rate"`
	Fields    []*Field  `json:"fields"`
	Follows   []*Follow `json:"follows"`
	DeclRange hcl.Range `json:"-"`
}

// Field is how the producer chooses one column's value.
type Field struct {
	Name string `json:"name"`
	Dist *Dist  `json:"value"`
	// Round is the number of decimals a numeric value is rounded to; nil
	// keeps full precision.
	Round     *int      `json:"round,omitempty"`
	DeclRange hcl.Range `json:"-"`
}

// Follow is an event that follows each produced row after a delay, such as a
// payment after an order. Outcome chooses what happens; the Never outcome
// means no event at all.
type Follow struct {
	Name    string   `json:"name"`
	Table   string   `json:"table"`
	Delay   *Dist    `json:"delay"`
	Outcome *Dist    `json:"outcome"`
	Never   string   `json:"never,omitempty"`
	Fields  []*Field `json:"fields"`
	Update  []*Field `json:"update,omitempty"`
	// UpdateTable is the table the follow-up updates (the producer's own).
	UpdateTable string    `json:"update_table,omitempty"`
	DeclRange   hcl.Range `json:"-"`
}

// Distribution kinds. Numeric parameters of delays are seconds.
const (
	DistConstant    = "constant"
	DistUniform     = "uniform"
	DistUniformInt  = "uniform_int"
	DistNormal      = "normal"
	DistLogNormal   = "lognormal"
	DistExponential = "exponential"
	DistWeighted    = "weighted"
	DistSequence    = "sequence"
	DistNow         = "now"
	DistParent      = "parent"
	DistField       = "field"
	DistOutcome     = "outcome"
	DistOutcomeMap  = "outcome_map"
)

// Dist is a value distribution written as an HCL function call.
type Dist struct {
	Kind string `json:"kind"`
	// Value of a constant: a string, a number (json.Number) or nil.
	Value any `json:"value,omitempty"`
	// Parameters; which apply depends on Kind.
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
	Mean   float64  `json:"mean,omitempty"`
	Stddev float64  `json:"stddev,omitempty"`
	Mu     float64  `json:"mu,omitempty"`
	Sigma  float64  `json:"sigma,omitempty"`
	Start  int64    `json:"start,omitempty"`
	Step   int64    `json:"step,omitempty"`
	// Choices of weighted, in sorted order of their values.
	Choices []Choice `json:"choices,omitempty"`
	// Field of the parent row (parent) or of the same row (field).
	Field string `json:"field,omitempty"`
	// Offset is added to the time of now(), parent() or field(), as
	// written now() + duration("14d"); in nanoseconds.
	Offset time.Duration `json:"offset,omitempty"`
	// Map from outcome to constant (outcome_map), sorted by outcome.
	Map []MapEntry `json:"map,omitempty"`
}

// Choice is one weighted value.
type Choice struct {
	Value  string  `json:"value"`
	Weight float64 `json:"weight"`
}

// MapEntry maps an outcome to a value; a nil Value (and no Dist) is SQL
// NULL. Dist is set when the value is itself drawn, as with now().
type MapEntry struct {
	Outcome string `json:"outcome"`
	Value   any    `json:"value"`
	Dist    *Dist  `json:"dist,omitempty"`
}

// Job modes.
const (
	ModeStreaming = "streaming"
	ModeBatch     = "batch"
)

// Job is a Flink SQL job: a query whose result is written into every
// Flink-reachable store of the table it writes.
type Job struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Mode        string `json:"mode"`
	// Reads and Writes name tables; the rendered job declares them.
	Reads  []string `json:"reads"`
	Writes string   `json:"writes"`
	// Query is the job's SELECT, inlined from its file.
	Query     string `json:"query"`
	QueryFile string `json:"query_file,omitempty"`
	// Settings are extra SET statements, sorted by key.
	Settings []Setting `json:"settings,omitempty"`
	// Uses lists the stores the query reads from, sorted.
	Uses        []StoreUse `json:"uses"`
	Unavailable string     `json:"unavailable,omitempty"`
	DeclRange   hcl.Range  `json:"-"`
	// QuerySource maps offsets of Query to the lab's source.
	QuerySource *SQLSource `json:"-"`
}

// UseMissing is the Kind of a StoreUse whose table is read by its plain
// name but whose CDC or Kafka store the stack left out.
const UseMissing = "missing"

// StoreUse is one store a job's query reads: a store kind (or UseMissing)
// and a table. lab.json spells it "kind:table".
type StoreUse struct {
	Kind  string
	Table string
}

func (u StoreUse) String() string { return u.Kind + ":" + u.Table }

// Less orders uses by kind, then table.
func (u StoreUse) Less(v StoreUse) bool {
	if u.Kind != v.Kind {
		return u.Kind < v.Kind
	}
	return u.Table < v.Table
}

// MarshalText writes kind:table.
func (u StoreUse) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText reads kind:table.
func (u *StoreUse) UnmarshalText(b []byte) error {
	kind, table, ok := strings.Cut(string(b), ":")
	if !ok || kind == "" || table == "" {
		return fmt.Errorf("store use %q is not kind:table", b)
	}
	u.Kind, u.Table = kind, table
	return nil
}

// Setting is one Flink configuration key and value.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Engines a query can run on.
const (
	EngineMySQL      = "mysql"
	EnginePostgres   = "postgres"
	EngineClickHouse = "clickhouse"
)

// Preset is a named read-only query for the console and for steps.
type Preset struct {
	Name        string `json:"name"`
	Engine      string `json:"engine"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	SQL         string `json:"sql"`
	// Needs names jobs whose output the preset reads; it is unavailable
	// when one of them is.
	Needs       []string  `json:"needs,omitempty"`
	Unavailable string    `json:"unavailable,omitempty"`
	DeclRange   hcl.Range `json:"-"`
	// SQLSource maps offsets of SQL to the lab's source.
	SQLSource *SQLSource `json:"-"`
}

// Experiment is a question asked of the running lab, answered by steps.
type Experiment struct {
	Name     string `json:"name"`
	Number   int    `json:"number"`
	Title    string `json:"title"`
	Question string `json:"question,omitempty"`
	// Intro is text shown before the steps.
	Intro string `json:"intro,omitempty"`
	// Record lists what the reader should write down.
	Record         []string `json:"record,omitempty"`
	Expected       string   `json:"expected,omitempty"`
	Interpretation string   `json:"interpretation,omitempty"`
	Needs          []string `json:"needs,omitempty"`
	Steps          []*Step  `json:"steps"`
	// Measures are the experiment's findings, computed from its captures
	// once its steps have run.
	Measures    []*Measure `json:"measures,omitempty"`
	Unavailable string     `json:"unavailable,omitempty"`
	DeclRange   hcl.Range  `json:"-"`
}

// Measure is a named number an experiment finds: its value is an
// expression over the captures of the experiment's steps (and earlier
// experiments'), in Unit.
type Measure struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Unit  string `json:"unit,omitempty"`
	Value Expr   `json:"value"`
	// Samples, Window and Resolution say what the value summarises: how
	// many samples (rows, runs, orders), the time they span and how
	// finely they were taken, each evaluated like Value after the steps
	// ran; nil when the lab does not say. Samples is a whole number;
	// Window and Resolution a duration ("30s") or a number of seconds.
	Samples    *Expr `json:"samples,omitempty"`
	Window     *Expr `json:"window,omitempty"`
	Resolution *Expr `json:"resolution,omitempty"`
	// Definition identifies what decides the value (MeasureDefinition):
	// "sha256:" and 12 hex digits. Records keep it beside the value, and
	// only values of one definition are compared.
	Definition string    `json:"definition"`
	DeclRange  hcl.Range `json:"-"`
}

// CompareStep is compare = { declared = producer.P.…, column = "C" }:
// the values of column C of a query step's rows beside the distribution
// the producer draws them from.
type CompareStep struct {
	// Of is the reference as written (producer.shop.follow.payment.delay).
	Of string `json:"of"`
	// Dist is the declared distribution; Declared says it in the lab's
	// words.
	Dist     *Dist  `json:"dist"`
	Declared string `json:"declared"`
	Column   string `json:"column"`
	// Unit is "s" for a delay (numeric parameters of delays are seconds).
	Unit string `json:"unit,omitempty"`
}

// Expr is an HCL expression kept as source text, evaluated by the runtime.
// Text is a static value when the expression needed nothing from a run;
// then Source is empty.
type Expr struct {
	Source string `json:"expr,omitempty"`
	// Text is the static value, or for a deferred template a readable form
	// with ${...} left in place.
	Text string `json:"text"`
	// Refs are the captured values the expression uses, found once when
	// the lab is loaded.
	Refs  []Ref     `json:"refs,omitempty"`
	Range hcl.Range `json:"-"`
}

// Ref is a captured value an expression refers to.
type Ref struct {
	Experiment string `json:"experiment"`
	Step       string `json:"step"`
	Name       string `json:"name"`
	// Text is how the lab wrote it: step.pick.order_id or
	// experiment.trace.pick.order_id.
	Text string `json:"text"`
}

// Deferred tells whether the runtime must evaluate the expression.
func (e *Expr) Deferred() bool { return e != nil && e.Source != "" }

// Capture is a named value taken from a step's result.
type Capture struct {
	Name string `json:"name"`
	Expr Expr   `json:"value"`
}

// Expect is a condition recorded as held or not held.
type Expect struct {
	Condition Expr   `json:"condition"`
	Message   string `json:"message"`
	// Detects names the controls under which the expectation must not
	// hold; Sanity says why none applies (it checks the lab, not the
	// pipeline's behaviour).
	Detects   []string  `json:"detects,omitempty"`
	Sanity    string    `json:"sanity,omitempty"`
	DeclRange hcl.Range `json:"-"`
	// MessageRange is the message's value, where a lint about it points.
	MessageRange hcl.Range `json:"-"`
}
