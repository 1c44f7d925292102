package schemas

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTypeMapping(t *testing.T) {
	seen := map[TypeKind]bool{}
	for _, c := range []struct {
		in, canonical, mysql, flink, clickhouse string
		numeric, integer                        bool
	}{
		{"tinyint", "tinyint", "TINYINT", "TINYINT", "Int8", true, true},
		{"smallint", "smallint", "SMALLINT", "SMALLINT", "Int16", true, true},
		{"int", "int", "INT", "INT", "Int32", true, true},
		{"bigint", "bigint", "BIGINT", "BIGINT", "Int64", true, true},
		{"float", "float", "FLOAT", "FLOAT", "Float32", true, false},
		{"double", "double", "DOUBLE", "DOUBLE", "Float64", true, false},
		{"decimal(12,2)", "decimal(12,2)", "DECIMAL(12,2)", "DECIMAL(12,2)", "Decimal(12, 2)", true, false},
		{"decimal(38,0)", "decimal(38,0)", "DECIMAL(38,0)", "DECIMAL(38,0)", "Decimal(38, 0)", true, false},
		{"decimal(1,1)", "decimal(1,1)", "DECIMAL(1,1)", "DECIMAL(1,1)", "Decimal(1, 1)", true, false},
		{"string", "string", "TEXT", "STRING", "String", false, false},
		{"string(32)", "string(32)", "VARCHAR(32)", "VARCHAR(32)", "String", false, false},
		{"string(65535)", "string(65535)", "VARCHAR(65535)", "VARCHAR(65535)", "String", false, false},
		{"boolean", "boolean", "BOOLEAN", "BOOLEAN", "Bool", false, false},
		{"date", "date", "DATE", "DATE", "Date32", false, false},
		{"timestamp", "timestamp(3)", "DATETIME(3)", "TIMESTAMP(3)", "DateTime64(3)", false, false},
		{"timestamp(0)", "timestamp(0)", "DATETIME(0)", "TIMESTAMP(0)", "DateTime64(0)", false, false},
		{"timestamp(6)", "timestamp(6)", "DATETIME(6)", "TIMESTAMP(6)", "DateTime64(6)", false, false},
		// Spelling is forgiving: case and spaces do not matter.
		{"  BIGINT ", "bigint", "BIGINT", "BIGINT", "Int64", true, true},
		{"Decimal( 18 , 4 )", "decimal(18,4)", "DECIMAL(18,4)", "DECIMAL(18,4)", "Decimal(18, 4)", true, false},
		{"String (8)", "string(8)", "VARCHAR(8)", "VARCHAR(8)", "String", false, false},
	} {
		lt, err := ParseType(c.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", c.in, err)
			continue
		}
		seen[lt.Kind] = true
		got := []string{lt.String(), lt.MySQL(), lt.Flink(), lt.ClickHouse()}
		want := []string{c.canonical, c.mysql, c.flink, c.clickhouse}
		if strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("%q maps to %v, want %v", c.in, got, want)
		}
		if lt.IsNumeric() != c.numeric || lt.IsInteger() != c.integer {
			t.Errorf("%q: numeric %v integer %v, want %v %v", c.in, lt.IsNumeric(), lt.IsInteger(), c.numeric, c.integer)
		}
		// The canonical spelling parses back to the same type.
		again, err := ParseType(lt.String())
		if err != nil || again != lt {
			t.Errorf("%q: canonical %q parses to %+v, %v", c.in, lt.String(), again, err)
		}
	}
	// A kind added without a row above fails here.
	for _, k := range []TypeKind{TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble, TypeDecimal, TypeString, TypeBoolean, TypeDate, TypeTimestamp} {
		if !seen[k] {
			t.Errorf("no mapping checked for %s", k)
		}
		if !strings.Contains(typeList, string(k)) {
			t.Errorf("%s is missing from the list of types in messages", k)
		}
	}
}

func TestParseTypeErrors(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"", `"" is not a type`},
		{"bigin", `"bigin" is not a type; write one of tinyint`},
		{"varchar(10)", `"varchar(10)" is not a type`},
		{"int(11)", "type int takes no arguments"},
		{"boolean(1)", "type boolean takes no arguments"},
		{"date(3)", "type date takes no arguments"},
		{"decimal", "decimal needs a precision and a scale"},
		{"decimal(10)", "decimal needs a precision and a scale"},
		{"decimal(2,5)", "decimal scale 5 is larger than its precision 2"},
		{"decimal(0,0)", "decimal precision must be between 1 and 38, not 0"},
		{"decimal(39,2)", "decimal precision must be between 1 and 38, not 39"},
		{"decimal(99999999999999999999,2)", "decimal precision must be between 1 and 38"},
		{"string(0)", "string length must be between 1 and 65535, not 0"},
		{"string(65536)", "string length must be between 1 and 65535, not 65536"},
		{"string(1,2)", "string takes at most one argument"},
		{"timestamp(7)", "timestamp precision must be between 0 and 6, not 7"},
		{"timestamp(3,1)", "timestamp takes at most one argument"},
		{"decimal(-1,2)", `"decimal(-1,2)" is not a type`},
		{"decimal(12,2", `"decimal(12,2" is not a type`},
		{"big int", `"big int" is not a type`},
		{"string(32) not null", `"string(32) not null" is not a type`},
	} {
		_, err := ParseType(c.in)
		if err == nil {
			t.Errorf("ParseType(%q) succeeded, want %q", c.in, c.err)
			continue
		}
		if !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseType(%q) = %q, want it to contain %q", c.in, err, c.err)
		}
	}
}

func TestTypeJSON(t *testing.T) {
	var col Column
	if err := json.Unmarshal([]byte(`{"name":"a","type":"decimal(12,2)"}`), &col); err != nil {
		t.Fatal(err)
	}
	if col.Type != (LogicalType{Kind: TypeDecimal, Precision: 12, Scale: 2}) {
		t.Errorf("decoded %+v", col.Type)
	}
	b, err := json.Marshal(&col)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"name":"a","type":"decimal(12,2)"}` {
		t.Errorf("encoded %s", b)
	}
	if err := json.Unmarshal([]byte(`{"name":"a","type":"bigin"}`), &col); err == nil {
		t.Error("an unknown type in lab.json was accepted")
	}
}
