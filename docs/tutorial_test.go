package docs_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/cli"
	"github.com/labgen/labgen/internal/golden"
	"github.com/labgen/labgen/schemas"
)

// The tutorial builds the lab in tutorialLab piece by piece. Every code
// block that shows one of its files is preceded by a line
//
//	<!-- file: docs/tutorial/bikes/FILE -->
//
// and a file may be shown in several consecutive pieces, which put
// together (each ending with a newline) are the file. A ```hcl or ```sql
// block that is not a file of the lab (a mistake shown on purpose) is
// preceded by <!-- snippet: why --> instead, so that no block of the
// lab's languages goes unchecked by accident.
const (
	tutorialPage = "tutorial.md"
	tutorialLab  = "tutorial/bikes" // relative to docs/, where go test runs
	tutorialRoot = "docs/"          // what the markers' paths start with
)

var (
	tutorialFileMark    = regexp.MustCompile(`^<!-- file: (\S+) -->$`)
	tutorialSnippetMark = regexp.MustCompile(`^<!-- snippet: .+ -->$`)
	tutorialFence       = regexp.MustCompile("^```([a-z]*)$")
)

// tutorialBlock is one fenced code block of the page.
type tutorialBlock struct {
	line    int    // of the opening fence
	lang    string // hcl, sql, sh, text, …
	file    string // from the file marker, relative to docs/; "" if none
	snippet bool   // preceded by a snippet marker
	text    string // the block's lines, each ending with a newline
}

func tutorialBlocks(t *testing.T) []tutorialBlock {
	t.Helper()
	f, err := os.Open(tutorialPage)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		blocks []tutorialBlock
		cur    *tutorialBlock
		prev   string // the last non-blank line outside a block
		n      int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		if cur != nil {
			if line == "```" {
				blocks = append(blocks, *cur)
				cur, prev = nil, line // a marker names only the block right after it
				continue
			}
			cur.text += line + "\n"
			continue
		}
		if m := tutorialFence.FindStringSubmatch(line); m != nil {
			cur = &tutorialBlock{line: n, lang: m[1]}
			if fm := tutorialFileMark.FindStringSubmatch(prev); fm != nil {
				if !strings.HasPrefix(fm[1], tutorialRoot) {
					t.Errorf("%s:%d: the file marker's path %s does not start with %s", tutorialPage, n-1, fm[1], tutorialRoot)
				}
				cur.file = strings.TrimPrefix(fm[1], tutorialRoot)
			}
			cur.snippet = tutorialSnippetMark.MatchString(prev)
			continue
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: a code block is never closed", tutorialPage, cur.line)
	}
	return blocks
}

// TestTutorialShowsTheLab: the code the tutorial shows is the lab CI runs,
// byte for byte, and every file of the lab is shown.
func TestTutorialShowsTheLab(t *testing.T) {
	blocks := tutorialBlocks(t)
	shown := map[string]bool{}
	// Consecutive blocks of one file are one showing of it.
	for i := 0; i < len(blocks); {
		b := blocks[i]
		if b.file == "" {
			if (b.lang == "hcl" || b.lang == "sql") && !b.snippet {
				t.Errorf("%s:%d: a ```%s block without <!-- file: %s%s/FILE --> (or <!-- snippet: why --> for code that is not a file of the lab)", tutorialPage, b.line, b.lang, tutorialRoot, tutorialLab)
			}
			i++
			continue
		}
		if !strings.HasPrefix(b.file, tutorialLab+"/") {
			t.Errorf("%s:%d: %s%s is not a file of the tutorial's lab, %s%s", tutorialPage, b.line, tutorialRoot, b.file, tutorialRoot, tutorialLab)
		}
		text, first := "", b.line
		for ; i < len(blocks) && blocks[i].file == b.file; i++ {
			text += blocks[i].text
		}
		shown[b.file] = true
		want, err := os.ReadFile(filepath.FromSlash(b.file))
		if err != nil {
			t.Errorf("%s:%d: %v", tutorialPage, first, err)
			continue
		}
		if text != string(want) {
			t.Errorf("%s:%d: the blocks of %s%s are not the file:\n%s", tutorialPage, first, tutorialRoot, b.file, golden.FirstDiff(string(want), text))
		}
	}
	var files []string
	err := filepath.WalkDir(tutorialLab, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, filepath.ToSlash(path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("%s has no files", tutorialLab)
	}
	for _, f := range files {
		if !shown[f] {
			t.Errorf("%s never shows %s%s: show it after a <!-- file: %s%s --> line", tutorialPage, tutorialRoot, f, tutorialRoot, f)
		}
	}
}

// TestTutorialLabLoads: the lab loads the way labgen validate loads it
// (with the lints), with no error and no warning, and the page quotes
// validate's verdict as validate prints it.
func TestTutorialLabLoads(t *testing.T) {
	p := schemas.NewParser()
	lab, diags := p.Load(tutorialLab, schemas.Options{Lint: true})
	for _, d := range diags {
		t.Errorf("%s", tutorialDiag(d))
	}
	if lab == nil || diags.HasErrors() {
		return
	}
	page, err := os.ReadFile(tutorialPage)
	if err != nil {
		t.Fatal(err)
	}
	verdict := cli.ValidLine(lab, 0)
	if !strings.Contains(string(page), verdict) {
		t.Errorf("%s does not quote what labgen validate says of the finished lab: %s", tutorialPage, verdict)
	}
}

// TestTutorialMistake: the deliberate mistake the tutorial shows (the
// producer's table misspelt) gives the diagnostic it quotes, at the same
// file, line and column.
func TestTutorialMistake(t *testing.T) {
	const (
		file = "producer.hcl"
		good = "table = table.rides"
		bad  = "table = table.ride"
	)
	dir := filepath.Join(t.TempDir(), filepath.Base(tutorialLab))
	if err := os.CopyFS(dir, os.DirFS(tutorialLab)); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), good) {
		t.Fatalf("%s/%s no longer has %q, the line the tutorial misspells", tutorialLab, file, good)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strings.Replace(string(src), good, bad, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := schemas.NewParser().Load(dir, schemas.Options{Lint: true})
	if len(diags) != 1 || diags[0].Severity != hcl.DiagError || diags[0].Subject == nil {
		t.Fatalf("the misspelt table gives %d diagnostics, want 1 error at a line:\n%s", len(diags), diags.Error())
	}
	page, err := os.ReadFile(tutorialPage)
	if err != nil {
		t.Fatal(err)
	}
	d := diags[0]
	rel, err := filepath.Rel(filepath.Dir(dir), d.Subject.Filename)
	if err != nil {
		t.Fatal(err)
	}
	// As cli's writeDiags prints it, from the directory holding the lab.
	for _, want := range []string{
		fmt.Sprintf("%s:%d:%d: Error: %s", filepath.ToSlash(rel), d.Subject.Start.Line, d.Subject.Start.Column, d.Summary),
		d.Detail,
		bad,
	} {
		if !strings.Contains(tutorialSpaces(string(page)), tutorialSpaces(want)) {
			t.Errorf("%s does not quote the diagnostic of the misspelt table as validate gives it: %q", tutorialPage, want)
		}
	}
}

func tutorialDiag(d *hcl.Diagnostic) string {
	at := ""
	if d.Subject != nil {
		at = fmt.Sprintf("%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
	}
	sev := "error"
	if d.Severity == hcl.DiagWarning {
		sev = "warning"
	}
	return fmt.Sprintf("%s%s: %s: %s", at, sev, d.Summary, d.Detail)
}

// tutorialSpaces folds runs of white space (hcl wraps a detail at 78
// columns) into one space.
func tutorialSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }
