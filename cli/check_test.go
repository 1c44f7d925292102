package cli

import (
	"strings"
	"testing"
)

// TestValidateEnginesUnreachable: engines that do not answer leave the
// lab valid, each listed as not checked with why.
func TestValidateEnginesUnreachable(t *testing.T) {
	closed := closedPort(t)
	code, out, errOut := run(t, "", nil, "validate", "../labs/orders", "--engines",
		"--gateway", "http://"+closed, "--mysql", closed, "--clickhouse", closed)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		`The lab "orders" is valid`,
		"Not checked: Flink jobs: the SQL gateway at http://" + closed + " does not answer",
		"Not checked: MySQL: 8 preset(s) and query step(s) and the lab's DDL: MySQL at lab_reader@" + closed + "/shop does not answer",
		"Not checked: ClickHouse: ",
		"The engine check took",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestValidateEngineFlagsNeedEngines(t *testing.T) {
	code, _, errOut := run(t, "", nil, "validate", "../labs/orders", "--gateway", "http://127.0.0.1:1")
	if code != ExitUsage || !strings.Contains(errOut, "--engines") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
