package schemas

import (
	"testing"

	"github.com/labgen/labgen/flinksql"
)

// TestOutputTypes: which SELECT items the output check types, and which
// it lets Flink insert without a CAST.
func TestOutputTypes(t *testing.T) {
	dec := func(p, s int) LogicalType { return LogicalType{Kind: TypeDecimal, Precision: p, Scale: s} }
	columns := map[string][]LogicalType{
		"big":    {dec(18, 2)},
		"id":     {{Kind: TypeBigInt}},
		"n":      {{Kind: TypeInt}},
		"name":   {{Kind: TypeString, Length: 32}},
		"at":     {{Kind: TypeTimestamp, Precision: 3}},
		"either": {{Kind: TypeInt}, {Kind: TypeString}},
	}
	for _, c := range []struct {
		item  string
		to    LogicalType
		fits  bool // false: warned
		known bool
	}{
		{"big", dec(12, 2), true, true},      // DECIMAL(18,2) into DECIMAL(12,2): cast implicitly
		{"o.n AS x", dec(12, 2), true, true}, // INT widens to DECIMAL
		{"n", LogicalType{Kind: TypeBigInt}, true, true},
		{"id", LogicalType{Kind: TypeInt}, false, true}, // BIGINT does not narrow
		{"name", LogicalType{Kind: TypeBigInt}, false, true},
		{"at", LogicalType{Kind: TypeDate}, true, true},
		{"'x' AS s", LogicalType{Kind: TypeString, Length: 4}, true, true},
		{"1 AS s", LogicalType{Kind: TypeTinyInt}, true, true}, // a literal number: any number
		{"1 AS s", LogicalType{Kind: TypeString}, false, true},
		{"TRUE AS b", LogicalType{Kind: TypeBoolean}, true, true},
		{"CAST(n AS STRING) AS s", LogicalType{Kind: TypeInt}, false, true},
		{"CAST(n AS DECIMAL(10, 2)) AS s", dec(12, 2), true, true},
		{"CAST(n AS INT) + 1 AS s", LogicalType{Kind: TypeString}, true, false},
		{"either", LogicalType{Kind: TypeInt}, true, false},
		{"unknown", LogicalType{Kind: TypeInt}, true, false},
		{"COALESCE(name, 'x') AS s", LogicalType{Kind: TypeInt}, true, false},
	} {
		toks := flinksql.Lex("SELECT " + c.item + " FROM t")
		items, _, ok := flinksql.SelectList(toks)
		if !ok || len(items) != 1 {
			t.Fatalf("%s: no item", c.item)
		}
		from, literal, known := itemType(toks, items[0], columns)
		if known != c.known {
			t.Errorf("%s: known %v, want %v", c.item, known, c.known)
			continue
		}
		if !known {
			continue
		}
		to := typeOfColumn(c.to)
		fits := assignable(from, to) || literal && from.family == to.family
		if fits != c.fits {
			t.Errorf("%s into %s: fits %v, want %v", c.item, c.to, fits, c.fits)
		}
	}
}
