package schemas

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// StoreKind is one kind of store a table can live in, described once: its
// store block's body and what the loader reads from it, the stack block
// it needs, how people see it named, and, for a lake, the Flink catalog
// and table options every face renders. The loader, render (job SQL,
// lake_tables.sql, the runbook), the smoke checks and the runtime read it
// instead of switching on kinds; a new kind is an entry of StoreRegistry.
type StoreKind struct {
	Kind string
	// Title names the kind for people ("Iceberg").
	Title string
	// Component is the stack block that must run for the store to be
	// kept (its own Kind for every kind so far).
	Component string
	// Source: a source database, written by the producer and read by
	// Flink through CDC (or JDBC in a bounded job).
	Source bool
	// Timed: its block may declare time attributes (what Flink reads as
	// a stream: the sources and Kafka).
	Timed bool
	// FlinkWrites: a job inserts into it (Kafka and the lakes; ClickHouse
	// ingests from Kafka instead).
	FlinkWrites bool
	// Lake is what a table on the shared warehouse adds; nil otherwise.
	Lake *LakeKind
	// Place names a store of the kind in the runbook ("Iceberg
	// `lab.orders`"); Node in the data-flow chart ("Iceberg orders").
	Place, Node func(s *Stack, st *Store) string

	// doc is its reference text (see refText), with its stack block's
	// when the kind has one of its own; kinds described before the
	// registry keep theirs in reference_*.go.
	doc map[string]string
	// attrs are its block's attributes (a Timed kind's event_time block
	// comes with Timed); decode reads the kind's own into the store, its
	// Database included (name, append_only and the time attributes are
	// read for every kind).
	attrs  []string
	decode func(d *decoder, s *Store, c *hcl.BodyContent, t *Table, cols map[string]*Column)
}

// LakeKind is what a lake store kind adds: a table in a catalog on the
// warehouse volume shared by the Flink processes (or in Fluss), created
// once by lake_tables.sql and named by jobs as <catalog>.<database>.<table>.
type LakeKind struct {
	// Catalog is the Flink catalog the jobs name its tables through.
	Catalog string
	// CatalogWhy is the comment above its CREATE CATALOG.
	CatalogWhy func(s *Stack) string
	// CatalogOptions are its catalog's WITH options, for a face where
	// the kind's warehouse directory is the URI warehouse and Fluss is at
	// fluss.
	CatalogOptions func(s *Stack, warehouse, fluss string) []string
	// TableOptions are the WITH options of its CREATE TABLE.
	TableOptions func(s *Stack) []string
	// JobSettings are what a job writing such a table must SET (key,
	// value, …), and WhySettings says why.
	JobSettings []string
	WhySettings string
	// Files is where a table with committed data has files, below the
	// kind's warehouse directory (slash-separated), what they are called,
	// and the smoke check's name for them.
	Files func(s *Stack, st *Store) (dir, pattern, check string)
	// Warehouse is the kind's directory below the warehouse volume: where
	// its catalog keeps the tables, or where Fluss tiers them.
	Warehouse string
	// OwnWarehouse: the catalog creates the tables in Warehouse, which
	// the engine check can replace by a scratch directory; Fluss keeps
	// them in the lab's Fluss.
	OwnWarehouse bool
}

// StoreRegistry is every store kind, in the order messages list them.
var StoreRegistry = []*StoreKind{mysqlStore, postgresStore, kafkaStore, clickhouseStore, flussStore, icebergStore, paimonStore}

// storeKinds are the store kinds' names, in the registry's order.
var storeKinds = func() []string {
	var out []string
	for _, k := range StoreRegistry {
		out = append(out, k.Kind)
	}
	return out
}()

// storeDocs are the store kinds' own reference texts.
func storeDocs() map[string]string {
	out := map[string]string{}
	for _, k := range StoreRegistry {
		for key, v := range k.doc {
			out[key] = v
		}
	}
	return out
}

// StoreKindOf is the description of a store kind, or nil.
func StoreKindOf(kind string) *StoreKind {
	for _, k := range StoreRegistry {
		if k.Kind == kind {
			return k
		}
	}
	return nil
}

// LakeOf is the lake description of a store kind, or nil.
func LakeOf(kind string) *LakeKind {
	if k := StoreKindOf(kind); k != nil {
		return k.Lake
	}
	return nil
}

// LakeKinds are the lake store kinds, in the registry's order.
func LakeKinds() []*StoreKind {
	var out []*StoreKind
	for _, k := range StoreRegistry {
		if k.Lake != nil {
			out = append(out, k)
		}
	}
	return out
}

// LakeCatalogs are the lake kinds' Flink catalogs.
func LakeCatalogs() []string {
	var out []string
	for _, k := range LakeKinds() {
		out = append(out, k.Lake.Catalog)
	}
	return out
}

// LakeByCatalog is the lake store kind of a catalog name, or nil.
func LakeByCatalog(catalog string) *StoreKind {
	for _, k := range LakeKinds() {
		if k.Lake.Catalog == catalog {
			return k
		}
	}
	return nil
}

// HasLakes tells whether the stack keeps lake tables (on the shared
// warehouse volume, or tiered there from Fluss).
func (s *Stack) HasLakes() bool {
	for _, k := range LakeKinds() {
		if stackHas(s, k.Component) {
			return true
		}
	}
	return false
}

// stackHas is (*Stack).Has, set by init: the registry's flink component
// sizes its memory with HasLakes, so a direct call would make the
// registry's initialization refer to itself.
var stackHas func(*Stack, string) bool

func init() { stackHas = (*Stack).Has }

// IsSourceStore tells whether a store kind is a source database.
func IsSourceStore(kind string) bool {
	k := StoreKindOf(kind)
	return k != nil && k.Source
}

// IsLake tells whether a store kind is a lake table.
func IsLake(kind string) bool { return LakeOf(kind) != nil }

// schema is the body of the kind's store block.
func (k *StoreKind) schema() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, a := range k.attrs {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a})
	}
	if k.Timed {
		s.Blocks = []hcl.BlockHeaderSchema{{Type: "event_time"}}
	}
	return s
}

// place and node are the usual names of a store: its title and
// database.table (place) or table (node).
func place(title string) func(*Stack, *Store) string {
	return func(_ *Stack, st *Store) string { return fmt.Sprintf("%s `%s.%s`", title, st.Database, st.Name) }
}

func node(title string) func(*Stack, *Store) string {
	return func(_ *Stack, st *Store) string { return title + " " + st.Name }
}

var mysqlStore = &StoreKind{
	Kind: StoreMySQL, Title: "MySQL", Component: "mysql", Source: true, Timed: true,
	Place: place("MySQL"), Node: node("MySQL"),
	attrs: []string{"name", "processing_time", "append_only"},
	decode: func(d *decoder, s *Store, c *hcl.BodyContent, _ *Table, _ map[string]*Column) {
		s.Database = d.lab.Stack.MySQL.Database
	},
}

var postgresStore = &StoreKind{
	Kind: StorePostgres, Title: "PostgreSQL", Component: "postgres", Source: true, Timed: true,
	Place: place("PostgreSQL"), Node: node("PostgreSQL"),
	attrs: []string{"name", "processing_time"},
	decode: func(d *decoder, s *Store, c *hcl.BodyContent, _ *Table, _ map[string]*Column) {
		s.Database = d.lab.Stack.Postgres.Database
	},
}

var kafkaStore = &StoreKind{
	Kind: StoreKafka, Title: "Kafka", Component: "kafka", Timed: true, FlinkWrites: true,
	Place: func(_ *Stack, st *Store) string { return fmt.Sprintf("Kafka topic `%s`", st.Name) },
	Node:  node("Kafka"),
	attrs: []string{"topic", "partitions", "processing_time", "append_only"},
	decode: func(d *decoder, s *Store, c *hcl.BodyContent, t *Table, _ map[string]*Column) {
		s.Name = d.topic(c.Attributes["topic"], t.Name)
		s.Partitions = d.atLeast(c.Attributes["partitions"], 1, 1)
	},
}

var clickhouseStore = &StoreKind{
	Kind: StoreClickHouse, Title: "ClickHouse", Component: "clickhouse",
	Place: place("ClickHouse"),
	Node:  func(_ *Stack, st *Store) string { return "ClickHouse " + st.Database + "." + st.Name },
	attrs: []string{"name", "version", "ingest", "arrival"},
	decode: func(d *decoder, s *Store, c *hcl.BodyContent, t *Table, cols map[string]*Column) {
		s.Database = d.lab.Stack.ClickHouse.Database
		if va := c.Attributes["version"]; va != nil {
			s.Version = d.str(va)
			col, ok := cols[s.Version]
			switch {
			case !ok:
				d.errorf(va.Expr.Range(), "Unknown version column", "Table %s has no column %q to use as the ReplacingMergeTree version.%s", t.Name, s.Version, columnHint(t, s.Version))
			case col.Type.Kind != "" && !(col.Type.IsInteger() || col.Type.Kind == TypeTimestamp || col.Type.Kind == TypeDate):
				d.errorf(va.Expr.Range(), "Invalid version column", "The version column must be an integer, date or timestamp; %q is %s.", s.Version, col.Type)
			}
		}
		if aa := c.Attributes["arrival"]; aa != nil {
			s.Arrival = d.identifier(aa)
			if _, ok := cols[s.Arrival]; ok {
				d.errorf(aa.Expr.Range(), "Arrival column is a column of the table", "Table %s already has a column %q; the arrival column is one ClickHouse adds and fills itself, so it needs a name of its own.", t.Name, s.Arrival)
			}
		}
		s.Ingest = d.oneOf(c.Attributes["ingest"], "", StoreKafka, "none")
		if s.Ingest == "none" {
			s.Ingest = ""
		}
	},
}

var flussStore = &StoreKind{
	Kind: StoreFluss, Title: "Fluss", Component: "fluss", FlinkWrites: true,
	Place: func(s *Stack, st *Store) string {
		return fmt.Sprintf("Fluss `%s.%s` (tiered into %s)", st.Database, st.Name, s.Fluss.Lake)
	},
	Node:  func(s *Stack, st *Store) string { return "Fluss " + st.Name + " + " + s.Fluss.Lake },
	attrs: []string{"name"},
	decode: func(d *decoder, s *Store, _ *hcl.BodyContent, _ *Table, _ map[string]*Column) {
		s.Database = d.lab.Stack.Fluss.Database
	},
	Lake: &LakeKind{
		Catalog:    FlussCatalog,
		CatalogWhy: func(s *Stack) string { return "Fluss, tiered into " + s.Fluss.Lake + " by the tiering service." },
		CatalogOptions: func(_ *Stack, _, fluss string) []string {
			return []string{"type", "fluss", "bootstrap.servers", fluss}
		},
		TableOptions: func(s *Stack) []string {
			return []string{"table.datalake.enabled", "true", "table.datalake.freshness", FlinkDuration(s.Fluss.Freshness)}
		},
		Files: func(s *Stack, st *Store) (string, string, string) {
			return st.Database + ".db/" + st.Name + "/snapshot", "snapshot-*",
				"Fluss " + st.Database + "." + st.Name + " is tiered into " + s.Fluss.Lake + " (a lake snapshot exists)"
		},
		Warehouse: "paimon",
	},
}

var icebergStore = &StoreKind{
	Kind: StoreIceberg, Title: "Iceberg", Component: "iceberg", FlinkWrites: true,
	Place: place("Iceberg"), Node: node("Iceberg"),
	attrs: []string{"name"},
	decode: func(d *decoder, s *Store, _ *hcl.BodyContent, _ *Table, _ map[string]*Column) {
		s.Database = d.lab.Stack.Iceberg.Database
	},
	Lake: &LakeKind{
		Catalog: IcebergCatalog,
		CatalogWhy: func(*Stack) string {
			return "Iceberg, a hadoop catalog on the shared warehouse volume; commits on checkpoints."
		},
		CatalogOptions: func(s *Stack, warehouse, _ string) []string {
			return []string{"type", "iceberg", "catalog-type", s.Iceberg.Catalog, "warehouse", warehouse, "property-version", "1"}
		},
		TableOptions: func(*Stack) []string { return []string{"format-version", "2", "write.upsert.enabled", "true"} },
		Files: func(_ *Stack, st *Store) (string, string, string) {
			return st.Database + "/" + st.Name + "/data", "*.parquet",
				"Iceberg " + st.Database + "." + st.Name + " has committed data files"
		},
		OwnWarehouse: true, Warehouse: "iceberg",
	},
}

// The lists of kinds the reference's prose names, from the registry, so
// that a new kind needs no edit of that prose.

// codeList is joinList of the words in backticks.
func codeList(xs []string, conj string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return joinList(q, conj)
}

// sinkKinds are the kinds a job inserts into.
func sinkKinds() []string {
	var out []string
	for _, k := range StoreRegistry {
		if k.FlinkWrites {
			out = append(out, k.Kind)
		}
	}
	return out
}

// lakeRefs are the ways a query names a lake table: catalog.db.table for
// each lake catalog (messages join them, the reference in backticks).
func lakeRefs(db, table string) []string {
	var out []string
	for _, c := range LakeCatalogs() {
		out = append(out, c+"."+db+"."+table)
	}
	return out
}

// lakeComponents are the stack blocks of the lake kinds.
func lakeComponents() []string {
	var out []string
	for _, k := range LakeKinds() {
		out = append(out, k.Component)
	}
	return out
}

// serviceless are the stack blocks that run no compose service.
func serviceless() []string {
	var out []string
	for _, c := range ComponentRegistry {
		if c.Name != "" && len(c.Services) == 0 {
			out = append(out, c.Name)
		}
	}
	return out
}
