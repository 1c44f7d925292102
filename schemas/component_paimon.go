package schemas

import "github.com/hashicorp/hcl/v2"

// PaimonCatalog is the catalog under which rendered Flink jobs see the
// Paimon tables Flink writes itself.
const PaimonCatalog = "paimon_catalog"

// Paimon is the lake table Flink writes directly, the usual lakehouse of
// Flink CDC users: no service of its own and no Fluss in between; the
// Flink processes write it into the shared warehouse, committing a
// snapshot at each checkpoint.
type Paimon struct {
	Version   string    `json:"version"`
	Database  string    `json:"database"`
	DeclRange hcl.Range `json:"-"`
}

var paimonComponent = &ComponentDesc{
	Name: "paimon", Title: "Paimon",
	Present: func(s *Stack) bool { return s.Paimon != nil },
	schema:  componentSchema("version", "database"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		st.Paimon = &Paimon{
			Version:   orDefault(d.version(at["version"]), DefaultPaimonVersion),
			Database:  orDefault(d.identifier(at["database"]), "lab"),
			DeclRange: b.DefRange,
		}
	},
}

// paimonStore keeps its warehouse apart from the one Fluss tiers into
// (paimon/), so that a table both stored in Fluss and written here
// directly are two tables.
var paimonStore = &StoreKind{
	Kind: StorePaimon, Title: "Paimon", Component: "paimon", FlinkWrites: true,
	Place: place("Paimon"), Node: node("Paimon"),
	attrs: []string{"name"},
	decode: func(d *decoder, s *Store, _ *hcl.BodyContent, _ *Table, _ map[string]*Column) {
		s.Database = d.lab.Stack.Paimon.Database
	},
	Lake: &LakeKind{
		Catalog: PaimonCatalog,
		CatalogWhy: func(*Stack) string {
			return "Paimon, a filesystem catalog on the shared warehouse volume; commits a snapshot on checkpoints."
		},
		CatalogOptions: func(_ *Stack, warehouse, _ string) []string {
			return []string{"type", "paimon", "warehouse", warehouse}
		},
		// One bucket: one writer per table at the lab's parallelism, and
		// the table's files in one directory.
		TableOptions: func(*Stack) []string { return []string{"bucket", "1"} },
		// Paimon's sink refuses to start behind Flink's upsert materializer
		// ("Sink materializer must not be used with Paimon sink"), which
		// the planner adds behind a join whose changes it cannot key;
		// the table's primary key merges the changes instead. The setting
		// is the job's: its other sinks get no materializer either.
		JobSettings: []string{"table.exec.sink.upsert-materialize", "NONE"},
		WhySettings: "Paimon's sink refuses Flink's upsert materializer; its primary key merges the changes (for every sink of this job).",
		Files: func(_ *Stack, st *Store) (string, string, string) {
			return st.Database + ".db/" + st.Name + "/snapshot", "snapshot-*",
				"Paimon " + st.Database + "." + st.Name + " has a committed snapshot"
		},
		OwnWarehouse: true, Warehouse: "paimon-direct",
	},
	doc: map[string]string{
		"stack.paimon": "Apache Paimon tables written by Flink directly, the lakehouse most Flink CDC users run, with " +
			"no Fluss in between: the tables of the lab's `store \"paimon\"` stores, in Flink's `paimon_catalog` " +
			"(a filesystem catalog) under `database`. It runs no service: Flink writes the tables into the " +
			"warehouse directory `paimon-direct/` on the shared volume (under `OUT/.native/` on the native stack) and " +
			"commits a snapshot at each checkpoint, with the `paimon-flink` jar in its image, so it needs `flink`. " +
			"Flink's TaskManagers get more memory with a lake. `labs/orders_pg` runs it.",
		"stack.paimon.enabled": stackEnabled("Paimon", true),
		"stack.paimon.version": "Optional string, default `\"" + DefaultPaimonVersion + "\"`: the release of the " +
			"`paimon-flink` jar for Flink's minor release; with Fluss tiering into Paimon too it must be Fluss's " +
			"`lake_version`, since one Flink holds one Paimon. Render fails for a version whose checksum labgen does not pin.",
		"stack.paimon.database": "Optional name, default `\"lab\"`: the database of `paimon_catalog` that holds the " +
			"lab's Paimon tables. Lowercase letters, digits and underscores, starting with a letter.",
		"store.paimon": "A Paimon primary-key table written by Flink jobs directly: read by them through `paimon_catalog`.",
		"table.store.paimon": "`store \"paimon\"` keeps the table in Paimon, in the stack's `paimon` database of the " +
			"`paimon_catalog` catalog, as a primary-key table with one bucket (`'bucket' = '1'`), created once by " +
			"`sql/flink/lake_tables.sql`. Flink jobs that write the table insert into it, a snapshot committed at each " +
			"checkpoint; jobs read it as `paimon_catalog.<db>.<table>` (a batch job reads the latest snapshot).",
		"table.store.paimon.name": "The Paimon table's name: lowercase letters, digits and underscores, starting with a letter. Default: the table's name.",
	},
}
