package flinksql

import (
	"fmt"
	"testing"
)

// TestTableRefsSkipsFromInCalls: the FROM of EXTRACT, SUBSTRING and TRIM
// names no table (a mutant's EXTRACT(SECOND FROM measured_at) was once
// reported as an undeclared table measured_at), while the tables around
// them are still found.
func TestTableRefsSkipsFromInCalls(t *testing.T) {
	q := "SELECT EXTRACT(SECOND FROM r.measured_at) AS s, SUBSTRING(name FROM 2) AS n, TRIM(BOTH ' ' FROM x) AS y " +
		"FROM (SELECT * FROM readings) AS r JOIN sites AS s ON s.id = r.site"
	var got []string
	for _, r := range TableRefs(Lex(q)) {
		got = append(got, r.Name())
	}
	if fmt.Sprint(got) != "[readings sites]" {
		t.Errorf("TableRefs = %v, want [readings sites]", got)
	}
}

// TestTableRefsSkipsDistinctFromAndArrayJoin: IS DISTINCT FROM compares
// two values and ClickHouse's ARRAY JOIN unfolds a column; the tables
// around them are still found.
func TestTableRefsSkipsDistinctFromAndArrayJoin(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT a FROM t WHERE a IS DISTINCT FROM b":                         "[t]",
		"SELECT a FROM t WHERE a IS NOT DISTINCT FROM b JOIN u ON u.a = t.a": "[t u]",
		"SELECT x FROM t ARRAY JOIN arr AS x LEFT ARRAY JOIN other AS y":     "[t]",
	} {
		var got []string
		for _, r := range TableRefs(Lex(q)) {
			got = append(got, r.Name())
		}
		if fmt.Sprint(got) != want {
			t.Errorf("TableRefs(%q) = %v, want %s", q, got, want)
		}
	}
}
