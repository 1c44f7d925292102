package docs_test

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/cli"
)

// TestCLIPage keeps cli.md what the command line's own help says
// (cli.WriteDoc: every command's usage, help and flags, the exit codes,
// passwords, what needs Docker), so that it cannot drift.
func TestCLIPage(t *testing.T) {
	var b strings.Builder
	cli.WriteDoc(&b)
	generated(t, "cli.md", b.String(), "labgen's help (cli/doc.go)")
}
