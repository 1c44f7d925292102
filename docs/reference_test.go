package docs_test

import (
	"testing"

	"github.com/labgen/labgen/schemas"
)

// TestReference keeps reference.md what the loader's schemas and their
// descriptions make of it (schemas.Reference; what is undescribed fails
// schemas' own test).
func TestReference(t *testing.T) {
	got, _ := schemas.Reference()
	generated(t, "reference.md", got, "the loader's schemas (schemas/reference*.go)")
}
