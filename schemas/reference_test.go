package schemas

import (
	"strings"
	"testing"
)

// TestReferenceDocumentsEverything fails when the loader accepts a block,
// attribute, object argument, function or store that the reference does
// not describe, or the reference describes what the loader lacks.
func TestReferenceDocumentsEverything(t *testing.T) {
	_, missing := Reference()
	for _, k := range refDuplicates {
		missing = append(missing, k+" (described twice)")
	}
	if len(missing) > 0 {
		t.Errorf("the reference (schemas/reference_text.go) lacks or has extra:\n%s", strings.Join(missing, "\n"))
	}
}
