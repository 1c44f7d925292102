package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// minFixed is how much of a quoted message must be labgen's own fixed
// text when a source string matches inside it: one whose fixed text
// (between its format verbs) is shorter matches too much to stand for a
// message. minWhole is the least fixed text of a source string that
// matches the whole message (after the prefix labgen or the diagnostic
// writer puts before it).
const (
	minFixed = 20
	minWhole = 10
)

// prefix is what labgen prints before a message: "labgen CMD: ", or a
// diagnostic's "FILE:LINE:COL: Error: " (its title follows).
var prefix = regexp.MustCompile(`^(?:labgen [a-z-]+: |(?:\S+:\d+:\d+: )?(?:Error|Warning): )`)

// TestTroubleshootingMessages keeps docs/troubleshooting.md true: the
// first line of each ```text block is a message labgen prints, and one of
// the string literals of labgen's non-test Go source, read as a format
// (its verbs match anything), must match inside that line with at least
// minFixed characters of fixed text, or match all of it (without the
// "labgen CMD: " or "FILE:LINE:COL: Error: " prefix) with at least
// minWhole. Edit a message in the source and the page's quote of it fails
// here.
func TestTroubleshootingMessages(t *testing.T) {
	page, err := os.ReadFile("troubleshooting.md")
	if err != nil {
		t.Fatal(err)
	}
	quoted := firstLinesOfTextBlocks(string(page))
	if len(quoted) < 20 {
		t.Fatalf("troubleshooting.md quotes %d messages in ```text blocks; expected at least 20", len(quoted))
	}
	formats := sourceFormats(t, "..")
	if len(formats) < 1000 {
		t.Fatalf("found only %d string literals in labgen's source; is the walk from .. right?", len(formats))
	}
	for _, q := range quoted {
		if !matchesSome(q.text, formats) {
			t.Errorf("troubleshooting.md:%d quotes a message no string of labgen's source prints (a literal, its verbs as wildcards, must match %d of its characters inside it, or all of it after its prefix):\n\t%s",
				q.line, minFixed, q.text)
		}
	}
}

type quote struct {
	line int
	text string
}

// firstLinesOfTextBlocks is the first line of every ```text fence.
func firstLinesOfTextBlocks(md string) []quote {
	var out []quote
	lines := strings.Split(md, "\n")
	inFence, want := false, false
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case !inFence && strings.HasPrefix(trimmed, "```"):
			inFence = true
			want = strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == "text"
		case inFence && trimmed == "```":
			inFence, want = false, false
		case want:
			out = append(out, quote{line: i + 1, text: strings.TrimSpace(l)})
			want = false
		}
	}
	return out
}

// format is one line of a source string literal, cut at its verbs.
type format struct {
	re, whole *regexp.Regexp
	fixed     int
}

var verb = regexp.MustCompile(`%[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[vTtbcdoOqxXUeEfFgGsp%w]`)

// sourceFormats reads every string literal of the module's non-test Go
// files (not testdata, out/ or docs/), one format per line of each.
func sourceFormats(t *testing.T, root string) []format {
	t.Helper()
	seen := map[string]bool{}
	var out []format
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case rel == ".":
				return nil
			case d.Name() == "testdata", rel == "out", rel == "docs", strings.HasPrefix(d.Name(), "."), d.Name() == "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			// A file someone is editing may not parse; its strings are
			// missed, and a message quoted from it fails visibly.
			t.Logf("skipping %s: %v", rel, err)
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, line := range strings.Split(s, "\n") {
				if seen[line] {
					continue
				}
				seen[line] = true
				if f, ok := compile(line); ok {
					out = append(out, f)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compile makes a format line a pattern: its fixed pieces in order, with
// anything between them where the verbs were.
func compile(line string) (format, bool) {
	pieces := verb.Split(line, -1)
	var parts []string
	fixed := 0
	for _, p := range pieces {
		p = strings.ReplaceAll(p, "%%", "%")
		if strings.TrimSpace(p) == "" {
			continue
		}
		fixed += len(p)
		parts = append(parts, regexp.QuoteMeta(p))
	}
	if fixed == 0 {
		return format{}, false
	}
	expr := strings.Join(parts, ".*?")
	if verb.MatchString(line) {
		// Verbs before the first or after the last fixed piece.
		expr = ".*?" + expr + ".*?"
	}
	return format{re: regexp.MustCompile(expr), whole: regexp.MustCompile("^(?:" + expr + ")$"), fixed: fixed}, true
}

func matchesSome(line string, formats []format) bool {
	rest := prefix.ReplaceAllString(line, "")
	for _, f := range formats {
		if f.fixed >= minFixed && f.re.MatchString(line) {
			return true
		}
		if f.fixed >= minWhole && f.whole.MatchString(rest) {
			return true
		}
	}
	return false
}

// TestTroubleshootingCheckIsStrict shows the check able to fail: quotes
// with one word of labgen's wording changed do not pass.
func TestTroubleshootingCheckIsStrict(t *testing.T) {
	formats := sourceFormats(t, "..")
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`labgen validate: no engine could check anything (see "Not checked" above); the lab's own checks passed, the engines' did not run`, true},
		{`labgen validate: no engine could verify anything (see "Not checked" above); the lab's own checks passed, the engines' did not run`, false},
		{`labs/mylab/experiments.hcl:529:15: Error: Unknown service`, true},
		{`labs/mylab/experiments.hcl:529:15: Error: Unknown services`, false},
		{`labgen validate: the lab has 3 errors`, true},
		{`labgen validate: the lab holds 3 errors`, false},
		{`kafka failed: exited while starting (exit status 1); last lines of out/orders/.native/logs/kafka.log:`, true},
		{`kafka failed: exited during start (exit status 1); last lines of out/orders/.native/logs/kafka.log:`, false},
	} {
		if got := matchesSome(c.line, formats); got != c.ok {
			t.Errorf("matchesSome(%q) = %v, want %v", c.line, got, c.ok)
		}
	}
}
