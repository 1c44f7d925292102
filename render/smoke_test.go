package render

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// TestSmokeScriptKinds: the script implements every kind of smoke check
// and no other (labgen smoke's TestSmokeKinds checks the Go side).
func TestSmokeScriptKinds(t *testing.T) {
	for _, k := range schemas.SmokeKinds {
		if smokeScript[k] == nil {
			t.Errorf("./stream-lab smoke does not implement smoke checks of kind %q", k)
		}
	}
	if len(smokeScript) != len(schemas.SmokeKinds) {
		t.Errorf("./stream-lab smoke implements %d kinds, schemas.SmokeKinds lists %d", len(smokeScript), len(schemas.SmokeKinds))
	}
}

// TestSmokeScriptChecks: every smoke check of the seed lab is a line of
// its smoke() (the services as one line per compose service).
func TestSmokeScriptChecks(t *testing.T) {
	for _, v := range variants {
		files := renderSeed(t, v.vars)
		script := string(files["stream-lab"])
		for _, c := range loadSeed(t, v.vars).SmokeChecks() {
			want := "\tcheck " + shQuote(c.ComposeName()) + " "
			switch c.Kind {
			case schemas.SmokeServices:
				want = "\tcheck 'service mysql is healthy' healthy mysql\n"
			case schemas.SmokeNote:
				want = "\tinfo " + shQuote(c.Name) + "\n"
			}
			if !strings.Contains(script, want) {
				t.Errorf("%s: stream-lab lacks the %s check %q", v.name, c.Kind, want)
			}
		}
	}
}
