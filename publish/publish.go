// Package publish turns lab records into static HTML pages: one
// self-contained page per record (the runbook with its results, sampled
// series as SVG charts) and, for several records of one lab, a comparison
// page. A page loads nothing: its CSS is inline, its charts are inline SVG
// drawn by gonum/plot, its text is Markdown rendered by goldmark, and it
// has no script.
package publish

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/labgen/labgen/runtime/record"
)

//go:embed page.html.tmpl style.css
var files embed.FS

// md renders the lab's prose (intro, text, expected, interpretation). Raw
// HTML in it is not passed through (goldmark's default), so a lab cannot
// put markup or scripts into a page.
var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

func markdown(s string) template.HTML {
	var b bytes.Buffer
	if err := md.Convert([]byte(s), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(s))
	}
	return template.HTML(b.String()) // goldmark escapes text and drops raw HTML
}

var tmpl = template.Must(template.New("page.html.tmpl").Funcs(template.FuncMap{
	"md":            markdown,
	"stamp":         stamp,
	"duration":      record.Duration,
	"svg":           func(s string) template.HTML { return template.HTML(s) }, // drawn by vgsvg from numbers and escaped labels
	"status":        statusWord,
	"add":           func(a, b int) int { return a + b },
	"json":          func(b []byte) string { return string(b) },
	"controlsIntro": func() string { return record.ControlsIntro },
	"mutantsIntro":  func() string { return record.MutantsIntro },
	"answersIntro":  func() string { return record.AnswersIntro },
	"noAnswer":      func() string { return record.NoAnswer },
	"css":           func() template.CSS { b, _ := files.ReadFile("style.css"); return template.CSS(b) },
}).ParseFS(files, "page.html.tmpl"))

func cellAt(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func statusWord(s string) string {
	switch s {
	case record.StatusOK:
		return "ok"
	case record.StatusError:
		return "failed"
	case record.StatusTimedOut:
		return "timed out"
	case record.StatusSkipped:
		return "skipped"
	}
	return s
}

// Page is the HTML page of one record.
func Page(r *record.Record) ([]byte, error) {
	v, err := recordView(r)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = tmpl.ExecuteTemplate(&b, "page", v)
	return b.Bytes(), err
}

// Comparison is the HTML page comparing records of one lab.
func Comparison(rs []*record.Record, names []string) ([]byte, error) {
	capped := make([]*record.Record, len(rs))
	for i, r := range rs {
		c, err := capTexts(r)
		if err != nil {
			return nil, fmt.Errorf("record %s: %w", r.ID, err)
		}
		capped[i] = c
	}
	v, err := buildCompare(capped, names)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = tmpl.ExecuteTemplate(&b, "compare", v)
	return b.Bytes(), err
}

// Write publishes records into dir: <id>.html per record and, when there
// are several records of one lab, compare.html (also index.html). It
// returns the files written. A record's id names its page, so an id that
// is not a plain file name (../x, .hidden, empty) refuses the publish
// before anything is written, and nothing is written outside dir: a
// symbolic link in dir that leads out of it is an error, not followed.
func Write(dir string, rs []*record.Record) ([]string, error) {
	names, err := pageNames(rs)
	if err != nil {
		return nil, err
	}
	if len(rs) > 1 {
		if err := oneLab(rs); err != nil {
			return nil, err
		}
		// Refused before anything is written, as Comparison would.
		if err := record.SameDefinitions(rs, names); err != nil {
			return nil, err
		}
	}
	w, err := newPageWriter(dir)
	if err != nil {
		return nil, err
	}
	defer w.close()
	if err := w.recordPages(rs, names); err != nil {
		return w.written, err
	}
	if len(rs) > 1 {
		b, err := Comparison(rs, names)
		if err != nil {
			return w.written, err
		}
		if err := w.put("compare.html", b); err != nil {
			return w.written, err
		}
		if err := w.put("index.html", b); err != nil {
			return w.written, err
		}
	}
	return w.written, nil
}

// pageWriter writes pages into a directory and nowhere else: a page's
// name must be a plain file name (pageNames made it so; IsLocal says so
// again where the path is made), and a symbolic link in the directory
// that leads out of it is an error, not followed (os.Root).
type pageWriter struct {
	dir     string
	root    *os.Root
	written []string
}

func newPageWriter(dir string) (*pageWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &pageWriter{dir: dir, root: root}, nil
}

func (w *pageWriter) put(name string, b []byte) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("refusing to write %q: not a file inside %s", name, w.dir)
	}
	if err := w.root.WriteFile(name, b, 0o644); err != nil {
		return fmt.Errorf("writing %s into %s: %w (a symbolic link there that leads out of it is not followed)", name, w.dir, err)
	}
	w.written = append(w.written, filepath.Join(w.dir, name))
	return nil
}

func (w *pageWriter) close() { w.root.Close() }

// recordPages writes each record's page as NAME.html, names in rs' order.
func (w *pageWriter) recordPages(rs []*record.Record, names []string) error {
	for i, r := range rs {
		b, err := Page(r)
		if err != nil {
			return fmt.Errorf("record %s: %w", r.ID, err)
		}
		if err := w.put(names[i]+".html", b); err != nil {
			return err
		}
	}
	return nil
}

// oneLab refuses records of different labs: a comparison needs one lab.
func oneLab(rs []*record.Record) error {
	labs := map[string]bool{}
	for _, r := range rs {
		labs[r.Lab.Name] = true
	}
	if len(labs) < 2 {
		return nil
	}
	var ls []string
	for l := range labs {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	return fmt.Errorf("the records are of different labs (%s); a comparison needs records of one lab", strings.Join(ls, ", "))
}

// pageNames are the records' page names (without .html): each id,
// which must be a plain file name (safeName), with -2, -3, … after an id
// seen before or one of Write's own pages (index, compare).
func pageNames(rs []*record.Record) ([]string, error) {
	taken := map[string]bool{"index": true, "compare": true}
	names := make([]string, len(rs))
	for i, r := range rs {
		if err := safeName(r.ID); err != nil {
			return nil, fmt.Errorf("record %d of %d (lab %q, started %s): %w; refusing to publish it", i+1, len(rs), r.Lab.Name, stamp(r.Started), err)
		}
		n := r.ID
		for k := 2; taken[n]; k++ {
			n = fmt.Sprintf("%s-%d", r.ID, k)
		}
		taken[n] = true
		names[i] = n
	}
	return names, nil
}

// safeName says why id cannot name a file as it is (nil: it can). A name
// is ASCII letters, digits, '.', '_' and '-', not starting with '.', and
// not empty: a record's id comes from its record.json, which anyone may
// have written.
func safeName(id string) error {
	switch {
	case id == "":
		return errors.New("its id is empty")
	case len(id) > 200:
		return fmt.Errorf("its id is %d characters long; at most 200 name a page", len(id))
	case id[0] == '.':
		return fmt.Errorf("its id %q starts with a dot", id)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("its id %q has %q; a page is named by an id of only letters, digits, '.', '_' and '-'", id, c)
		}
	}
	return nil
}
