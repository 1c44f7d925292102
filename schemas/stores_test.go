package schemas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreRegistry checks what the code reading the registry relies on:
// each kind is whole, a lake kind's catalog and warehouse are its own,
// and its component is a block of the stack.
func TestStoreRegistry(t *testing.T) {
	catalogs, warehouses, kinds := map[string]string{}, map[string]string{}, map[string]bool{}
	for _, k := range StoreRegistry {
		if kinds[k.Kind] {
			t.Errorf("kind %s registered twice", k.Kind)
		}
		kinds[k.Kind] = true
		if k.Title == "" || k.Place == nil || k.Node == nil || k.decode == nil || len(k.attrs) == 0 {
			t.Errorf("kind %s lacks a title, names, attributes or a decoder", k.Kind)
		}
		if Component(k.Component) == nil {
			t.Errorf("kind %s needs the unknown stack block %q", k.Kind, k.Component)
		}
		if k.Source && k.FlinkWrites {
			t.Errorf("kind %s is both a source and a sink", k.Kind)
		}
		l := k.Lake
		if l == nil {
			continue
		}
		if !k.FlinkWrites {
			t.Errorf("lake kind %s is not written by Flink", k.Kind)
		}
		if prev, dup := catalogs[l.Catalog]; dup {
			t.Errorf("kinds %s and %s share the catalog %s", prev, k.Kind, l.Catalog)
		}
		catalogs[l.Catalog] = k.Kind
		if prev, dup := warehouses[l.Warehouse]; dup || l.Warehouse == "" {
			t.Errorf("kinds %s and %s share the warehouse directory %q", prev, k.Kind, l.Warehouse)
		}
		warehouses[l.Warehouse] = k.Kind
		if l.CatalogWhy == nil || l.CatalogOptions == nil || l.TableOptions == nil || l.Files == nil {
			t.Errorf("lake kind %s lacks its catalog or table options or its files", k.Kind)
		}
		if LakeByCatalog(l.Catalog) != k || !IsLake(k.Kind) {
			t.Errorf("lake kind %s is not found by its catalog", k.Kind)
		}
	}
	if StoreKindOf("nope") != nil || IsLake(StoreKafka) || !IsSourceStore(StorePostgres) || IsSourceStore(StorePaimon) {
		t.Error("lookups")
	}
}

// TestPaimonStore loads a lab whose table Flink writes into Paimon and
// reads back through paimon_catalog, as labs/orders_pg does.
func TestPaimonStore(t *testing.T) {
	src := `
lab "p" {
  title = "p"
  seed  = 1
}
stack {
  kafka {}
  flink {}
  paimon {}
}
table "clicks" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}
table "lake" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "paimon" { name = "clicks_lake" }
}
table "counts" {
  key = ["n"]
  column "n" { type = "bigint" }
  store "kafka" {}
}
job "keep" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.lake
  query  = "SELECT id FROM clicks"
}
job "count" {
  mode   = "batch"
  reads  = [table.lake]
  writes = table.counts
  query  = "SELECT COUNT(*) AS n FROM paimon_catalog.lab.lake"
}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, diags := NewParser().Load(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s := l.Table("lake").Store(StorePaimon)
	if s == nil || s.Database != "lab" || s.Name != "clicks_lake" || l.Stack.Paimon.Version != DefaultPaimonVersion {
		t.Fatalf("paimon store %+v, stack %+v", s, l.Stack.Paimon)
	}
	if !l.Stack.HasLakes() {
		t.Error("a paimon block is a lake")
	}
	var uses []string
	for _, u := range l.Job("count").Uses {
		uses = append(uses, u.Kind+":"+u.Table)
	}
	if strings.Join(uses, ",") != "paimon:lake" {
		t.Errorf("count uses %v", uses)
	}
	var lake []string
	for _, c := range l.SmokeChecks() {
		if c.Kind == SmokeLake {
			lake = append(lake, c.Dir+" "+c.Pattern)
		}
	}
	if strings.Join(lake, ",") != "paimon-direct/lab.db/clicks_lake/snapshot snapshot-*" {
		t.Errorf("lake smoke checks %v", lake)
	}
}

// TestClickHouseArrival loads a serving table with an arrival column and
// refuses one named like a column of the table, or not an identifier.
func TestClickHouseArrival(t *testing.T) {
	lab := func(arrival string) string {
		return `
lab "a" {
  title = "a"
  seed  = 1
}
stack {
  kafka {}
  clickhouse {}
}
table "wide" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "updated_at" { type = "timestamp(3)" }
  store "kafka" {}
  store "clickhouse" {
    version = "updated_at"
    arrival = "` + arrival + `"
  }
}
`
	}
	load := func(src string) (*Lab, string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		l, diags := NewParser().Load(dir, Options{})
		if !diags.HasErrors() {
			return l, ""
		}
		return l, diags.Error()
	}
	l, errs := load(lab("arrived_at"))
	if errs != "" {
		t.Fatal(errs)
	}
	if s := l.Table("wide").Store(StoreClickHouse); s.Arrival != "arrived_at" || s.Version != "updated_at" {
		t.Errorf("clickhouse store %+v", s)
	}
	for arrival, want := range map[string]string{
		"updated_at": "Arrival column is a column of the table",
		"Arrived":    "Invalid name",
	} {
		if _, errs := load(lab(arrival)); !strings.Contains(errs, want) {
			t.Errorf("arrival %q: want %q, got %q", arrival, want, errs)
		}
	}
}
