package flinksql

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	script := "-- header; with a semicolon\nSET 'a' = 'x;y';\n\nCREATE TABLE t (\n  s STRING -- no; split\n) WITH ('k' = 'it''s;');\n" +
		"/* block; comment */ INSERT INTO t SELECT \"q;\" FROM u;\n" +
		"EXECUTE STATEMENT SET\nBEGIN\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND;\n-- trailing comment only\n"
	got, err := Split(script)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	var kws []string
	for _, s := range got {
		lines = append(lines, s.Line)
		kws = append(kws, s.Keyword())
	}
	if want := []int{2, 4, 7, 8}; !reflect.DeepEqual(lines, want) {
		t.Errorf("lines = %v, want %v", lines, want)
	}
	if want := []string{"SET", "CREATE", "INSERT", "EXECUTE"}; !reflect.DeepEqual(kws, want) {
		t.Errorf("keywords = %v, want %v", kws, want)
	}
	if want := "EXECUTE STATEMENT SET\nBEGIN\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND"; got[3].Text != want {
		t.Errorf("statement set = %q, want %q", got[3].Text, want)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, bad := range []string{"SELECT 'open;", "SELECT 1 /* open", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1;"} {
		if _, err := Split(bad); err == nil {
			t.Errorf("Split(%q) succeeded, want an error", bad)
		}
	}
}
