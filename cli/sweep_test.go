package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// The variants are the cross product of the swept lists, in the order
// given; a value without a comma is the same in every variant.
func TestSweepVariants(t *testing.T) {
	got, err := sweepVariants([]schemas.VarArg{
		{Name: "payment_delay", Value: "5s,45s"},
		{Name: "lakes", Value: "false"},
		{Name: "order_rate", Value: "5, 50"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range got {
		names = append(names, v.name)
	}
	want := []string{"payment_delay-5s_order_rate-5", "payment_delay-5s_order_rate-50", "payment_delay-45s_order_rate-5", "payment_delay-45s_order_rate-50"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("variants %q, want %q", names, want)
	}
	if v := got[3].vars; len(v) != 3 || v[1] != (schemas.VarArg{Name: "lakes", Value: "false"}) || v[2].Value != "50" {
		t.Errorf("the last variant's variables: %+v", v)
	}
	for _, bad := range [][]schemas.VarArg{{{Name: "lakes", Value: "false"}}, {{Name: "x", Value: "1,,2"}}} {
		if _, err := sweepVariants(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A sweep on one stack finds the run's new record in the stack's
// directory and moves it to its variant's records/, leaving the others.
func TestSweepMovesNewRecords(t *testing.T) {
	out := t.TempDir()
	stack, variant := filepath.Join(out, stackDirName), filepath.Join(out, "payment_delay-5s")
	mk := func(id string) {
		d := filepath.Join(stack, "records", id)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, record.JSONName), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("old")
	before := recordDirs(stack)
	mk("new")
	os.MkdirAll(filepath.Join(stack, "records", "half"), 0o755) // no record.json: not a record
	got, err := moveRecords(newRecords(stack, before), filepath.Join(variant, "records"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(variant, "records", "new")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("moved %q, want %q", got, want)
	}
	if !exists(filepath.Join(variant, "records", "new", record.JSONName)) || exists(filepath.Join(stack, "records", "new")) || !exists(filepath.Join(stack, "records", "old", record.JSONName)) {
		t.Fatal("the new record is not (only) in the variant's records/, or the old one moved")
	}
}

// sweepLab's measure reads a step whose SQL uses var.k: k decides what
// the measure measures; var.note is only in an expectation's message.
const sweepLab = `
lab "swept" {
  title = "Swept"
}

variable "k" {
  type    = number
  default = 1
}

variable "note" {
  type    = string
  default = "a"
}

stack {
  mysql {}
}

experiment "one" {
  number = 1
  title  = "One"

  step "count" {
    engine = "mysql"
    sql    = "SELECT ${var.k} AS n"
    capture = {
      n = result.rows[0].n
    }

    expect {
      condition = result.rows[0].n > 0
      message   = "Counted (${var.note})."
    }
  }

  measure "n" {
    title = "The count"
    value = step.count.n
  }
}
`

// A sweep whose variants would define a measure differently is refused
// before anything runs; one over a variable that decides no measure is
// not.
func TestSweepRefusesTwoDefinitions(t *testing.T) {
	lab := t.TempDir()
	if err := os.WriteFile(filepath.Join(lab, "lab.hcl"), []byte(sweepLab), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "sweep")
	code, _, stderr := run(t, "", nil, "sweep", lab, "-o", out, "-var", "k=1,2")
	if code != ExitUsage || !strings.Contains(stderr, "a swept variable changes what decides a measure's value: measure n of experiment 01 one has two definitions: sha256:") ||
		!strings.Contains(stderr, " in variant k-1, sha256:") || !strings.Contains(stderr, " in variant k-2; compare only runs of the same definition, or rename the measure") {
		t.Fatalf("sweep: %d\n%s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused sweep wrote %s (%v)", out, err)
	}

	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	variants, err := sweepVariants([]schemas.VarArg{{Name: "note", Value: "a,b"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sweepDefinitions(context.Background(), env, lab, variants, nil); err != nil {
		t.Errorf("a variable in a message only: %v", err)
	}
	variants, _ = sweepVariants([]schemas.VarArg{{Name: "k", Value: "1,2"}})
	if err := sweepDefinitions(context.Background(), env, lab, variants, []string{"2"}); err != nil {
		t.Errorf("an experiment not selected: %v", err)
	}
}
