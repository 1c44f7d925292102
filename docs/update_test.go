package docs_test

import (
	"flag"
	"os"
	"testing"

	"github.com/labgen/labgen/internal/golden"
)

// update rewrites the generated pages (reference.md, cli.md) instead of
// comparing them: `make golden`, then review the diff like code.
var update = flag.Bool("update", false, "rewrite the generated pages")

// generated keeps page what its generator (from) makes of it now, or
// with -update writes it.
func generated(t *testing.T, page, got, from string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(page, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("%v (make golden writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s is not what %s makes of it (make golden rewrites it):\n%s", page, from, golden.FirstDiff(string(want), got))
	}
}
