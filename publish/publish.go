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
	"isNull":        func(t record.Table, r, c int) bool { return t.IsNull(r, c) },
	"cell":          func(row []string, i int) string { return cellAt(row, i) },
	"add":           func(a, b int) int { return a + b },
	"json":          func(b []byte) string { return string(b) },
	"controlsIntro": func() string { return record.ControlsIntro },
	"mutantsIntro":  func() string { return record.MutantsIntro },
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
	v, err := buildCompare(rs, names)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = tmpl.ExecuteTemplate(&b, "compare", v)
	return b.Bytes(), err
}

// Write publishes records into dir: <id>.html per record, index.html
// (the record itself when there is one, else a list and the comparison),
// and compare.html when there are several records of one lab. It returns
// the files written.
func Write(dir string, rs []*record.Record) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	put := func(name string, b []byte) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	names := make([]string, len(rs))
	seen := map[string]int{}
	for i, r := range rs {
		n := r.ID
		if n == "" {
			n = fmt.Sprintf("record-%d", i+1)
		}
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s-%d", n, seen[n])
		}
		names[i] = n
		b, err := Page(r)
		if err != nil {
			return written, fmt.Errorf("record %s: %w", r.ID, err)
		}
		if err := put(n+".html", b); err != nil {
			return written, err
		}
	}
	if len(rs) > 1 {
		labs := map[string]bool{}
		for _, r := range rs {
			labs[r.Lab.Name] = true
		}
		if len(labs) > 1 {
			var ls []string
			for l := range labs {
				ls = append(ls, l)
			}
			sort.Strings(ls)
			return written, fmt.Errorf("the records are of different labs (%s); a comparison needs records of one lab", strings.Join(ls, ", "))
		}
		b, err := Comparison(rs, names)
		if err != nil {
			return written, err
		}
		if err := put("compare.html", b); err != nil {
			return written, err
		}
		if err := put("index.html", b); err != nil {
			return written, err
		}
	}
	return written, nil
}
