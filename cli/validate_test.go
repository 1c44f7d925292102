package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir/labdirtest"
)

const pinStack = `
stack {
  mysql {}
}
`

// The full text of a few diagnostics, as validate prints them: the
// position editors jump to, then hcl's rendering with the snippet.
func TestValidateDiagnosticText(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
		want  string
	}{
		{
			name: "wrong type",
			files: map[string]string{"lab.hcl": `lab "pin" {
  title = "Pinned"
  seed  = "random"
}
` + pinStack},
			want: `DIR/lab.hcl:3:11: Error: Incorrect attribute value type

  on DIR/lab.hcl line 3, in lab "pin":
   3:   seed  = "random"

seed must be a whole number: a number is required.

labgen validate: the lab has 1 error
`,
		},
		{
			name: "unknown table",
			files: map[string]string{
				"lab.hcl": "lab \"pin\" {\n  title = \"Pinned\"\n}\n" + pinStack,
				"producer.hcl": `table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

producer "shop" {
  table = table.order
  rate  = 1
  field "id" { value = sequence(1) }
}
`},
			want: `DIR/producer.hcl:8:11: Error: Reference to undeclared table

  on DIR/producer.hcl line 8, in producer "shop":
   8:   table = table.order

No table named "order" is declared in this lab. Did you mean orders?

labgen validate: the lab has 1 error
`,
		},
		{
			name: "capture of a later step",
			files: map[string]string{"lab.hcl": `lab "pin" {
  title = "Pinned"
}
` + pinStack + `
experiment "one" {
  number = 1
  title  = "One"

  step "source" {
    engine = "mysql"
    sql    = "SELECT * FROM dual WHERE id = ${step.pick.id}"
  }

  step "pick" {
    engine  = "mysql"
    sql     = "SELECT 1 AS id"
    capture = { id = result.rows[0].id }
  }
}
`},
			want: `DIR/lab.hcl:15:47: Error: Reference to a later step

  on DIR/lab.hcl line 15, in experiment "one":
  15:     sql    = "SELECT * FROM dual WHERE id = ${step.pick.id}"

Step pick of experiment one runs after this one: steps run in order, and a
step can use only what steps before it captured.

labgen validate: the lab has 1 error
`,
		},
		{
			// The table's error comes first though it is further down:
			// a table is a declaration the other blocks refer to.
			name: "two errors, a table's first",
			files: map[string]string{"lab.hcl": `lab "pin" {
  title = "Pinned"
}
` + pinStack + `
preset "drop" {
  engine = "mysql"
  sql    = "SELECT 1; DROP TABLE orders"
}

table "t" {
  key = ["id"]
  column "id" { type = "decimal(2,5)" }
  store "mysql" {}
}
`},
			want: `DIR/lab.hcl:16:24: Error: Invalid column type

  on DIR/lab.hcl line 16, in table "t":
  16:   column "id" { type = "decimal(2,5)" }

decimal scale 5 is larger than its precision 2.

DIR/lab.hcl:11:12: Error: Preset is not read-only

  on DIR/lab.hcl line 11, in preset "drop":
  11:   sql    = "SELECT 1; DROP TABLE orders"

Preset drop must be a single read-only statement: only one statement is
allowed; this text has more after a ';'.

labgen validate: the lab has 2 errors
`,
		},
		{
			// The misspelt attribute that left due_at out of the table
			// comes before the knock-on in producer.hcl, a file that
			// sorts before tables.hcl.
			name: "root cause first",
			files: map[string]string{
				"lab.hcl": "lab \"pin\" {\n  title = \"Pinned\"\n}\n" + pinStack,
				"tables.hcl": `table "loans" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "due_at" {
    type    = "timestamp(3)"
    nulable = true
  }
  store "mysql" {}
}
`,
				"producer.hcl": `producer "lender" {
  table = table.loans
  rate  = 1
  field "id" { value = sequence(1) }

  follow "again" {
    table   = table.loans
    delay   = 30
    outcome = weighted({ DUE = 1 })
    field "id" { value = sequence(1000000) }
    update {
      due_at = "2024-01-01 00:00:00"
    }
  }
}
`},
			want: `DIR/tables.hcl:6:5: Error: Unsupported argument

  on DIR/tables.hcl line 6, in table "loans":
   6:     nulable = true

An argument named "nulable" is not expected here. Did you mean "nullable"?

DIR/producer.hcl:12:7: Error: Unknown column

  on DIR/producer.hcl line 12, in producer "lender":
  12:       due_at = "2024-01-01 00:00:00"

Table loans has no column "due_at" to update.

labgen validate: the lab has 2 errors
`,
		},
		{
			name: "undeclared -var",
			files: map[string]string{"lab.hcl": `lab "pin" {
  title = "Pinned"
}
` + pinStack},
			args: []string{"-var", "rate=5"},
			want: `Error: Value for undeclared variable

The lab declares no variable named "rate" (set by -var rate). It declares no
variables at all.

labgen validate: the lab has 1 error
`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := labdirtest.WriteFiles(t, c.files)
			code, stdout, stderr := run(t, dir, nil, append([]string{"validate", dir}, c.args...)...)
			if code != ExitLabErrors {
				t.Errorf("exit code %d, want %d", code, ExitLabErrors)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			if stderr != c.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, c.want)
			}
		})
	}
}

func TestValidateExitCodes(t *testing.T) {
	seed := filepath.Join("..", "labs", "orders")
	valid := labdirtest.WriteFiles(t, map[string]string{"lab.hcl": "lab \"ok\" {\n  title = \"OK\"\n}\n" + pinStack})
	broken := labdirtest.WriteFiles(t, map[string]string{"lab.hcl": "lab \"broken\" {\n  title = \n}\n"})
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{"seed lab", []string{"validate", seed}, ExitOK, `The lab "orders" is valid: 5 tables, 3 jobs, 7 presets, 7 experiments.`, ""},
		{"seed lab, flags after", []string{"validate", seed, "-var", "order_rate=50", "-var", "payment_delay=10s"}, ExitOK, "is valid", ""},
		{"seed lab, flags before", []string{"validate", "-var", "order_rate=50", seed}, ExitOK, "is valid", ""},
		{"seed lab without lakes", []string{"validate", seed, "-var", "lakes=false"}, ExitOK,
			"7 experiments (2 unavailable in this stack), 4 warnings.", "Warning: Experiment unavailable in this stack"},
		{"seed lab, invalid rate", []string{"validate", seed, "-var", "order_rate=0"}, ExitLabErrors, "", "Error: Invalid value for variable"},
		{"seed lab, rate not a number", []string{"validate", seed, "-var", "order_rate=fast"}, ExitLabErrors, "", "is not compatible with its type number"},
		{"seed lab, missing var file", []string{"validate", seed, "-var-file", "no-such.vars"}, ExitUsage, "", "-var-file no-such.vars: no such file"},
		{"minimal", []string{"validate", valid}, ExitOK, `The lab "ok" is valid: 0 tables, 0 jobs, 0 presets, 0 experiments.`, ""},
		{"syntax error", []string{"validate", broken}, ExitLabErrors, "", "lab.hcl:2:11: Error: Invalid expression"},
		{"no such directory", []string{"validate", filepath.Join(valid, "nope")}, ExitUsage, "", "/nope: give the directory of the lab's .hcl files"},
		{"no lab files", []string{"validate", t.TempDir()}, ExitLabErrors, "", "Error: No lab files"},
		{"no directory", []string{"validate"}, ExitUsage, "", "validate takes one lab directory"},
		{"two directories", []string{"validate", valid, valid}, ExitUsage, "", "validate takes one lab directory"},
		{"bad -var", []string{"validate", valid, "-var", "rate"}, ExitUsage, "", `-var takes NAME=VALUE, not "rate"`},
		{"unknown flag", []string{"validate", "-force", valid}, ExitUsage, "", "unknown flag -force."},
		{"help", []string{"validate", "--help"}, ExitOK, "Usage: labgen validate LAB_DIR", ""},
		{"no command", nil, ExitUsage, "", "Usage: labgen <command>"},
		{"unknown command", []string{"valdate"}, ExitUsage, "", `unknown command "valdate"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "", nil, c.args...)
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout, stderr)
			}
			if !strings.Contains(stdout, c.stdout) {
				t.Errorf("stdout %q does not contain %q", stdout, c.stdout)
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr, c.stderr)
			}
			if c.code == ExitOK && strings.Contains(stderr, "Error") {
				t.Errorf("exit 0 with an error printed: %s", stderr)
			}
		})
	}
}

// TestValidateEnvironment checks that LABGEN_VAR_ comes from the Env the
// command is given, below -var.
func TestValidateEnvironment(t *testing.T) {
	seed := filepath.Join("..", "labs", "orders")
	code, _, stderr := run(t, "", []string{"LABGEN_VAR_order_rate=0"}, "validate", seed)
	if code != ExitLabErrors || !strings.Contains(stderr, "order_rate must be more than 0") {
		t.Errorf("LABGEN_VAR_order_rate=0: exit %d, %s", code, stderr)
	}
	code, _, stderr = run(t, "", []string{"LABGEN_VAR_order_rate=0"}, "validate", seed, "-var", "order_rate=3")
	if code != ExitOK {
		t.Errorf("-var should win over the environment: exit %d, %s", code, stderr)
	}
}

// TestValidateFixtures runs every fixture of the lab language through the
// command: whatever they contain ends in exit 0 or 1 with diagnostics,
// never in the recover() net (exit 3), and errors always exit 1.
func TestValidateFixtures(t *testing.T) {
	for _, kind := range []string{"valid", "invalid"} {
		dirs, err := filepath.Glob(filepath.Join("..", "schemas", "testdata", kind, "*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no %s fixtures: %v", kind, err)
		}
		for _, dir := range dirs {
			t.Run(kind+"/"+filepath.Base(dir), func(t *testing.T) {
				code, stdout, stderr := run(t, "", nil, "validate", dir)
				if strings.Contains(stderr, "internal error") || code == ExitRunFailed {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if strings.Contains(stderr, "Error: ") != (code == ExitLabErrors) {
					t.Errorf("exit %d does not match the errors printed:\n%s", code, stderr)
				}
				if (code == ExitOK) != strings.Contains(stdout, "is valid") {
					t.Errorf("exit %d with stdout %q", code, stdout)
				}
			})
		}
	}
}
