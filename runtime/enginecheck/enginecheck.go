// Package enginecheck asks the real engines whether they accept what a lab
// will run, before it runs: Flink's planner (through a SQL gateway) plans
// every job as rendered, and MySQL, PostgreSQL and ClickHouse EXPLAIN every
// preset and every query step whose SQL is known before the run. What an
// engine rejects becomes an hcl diagnostic at the lab's own source: the
// line inside jobs/*.sql or presets/*.sql, the heredoc in the .hcl file,
// the table's block for its DDL. Nothing of the lab's data is changed:
// Flink statements run in a fresh session of temporary tables and views,
// INSERTs are only EXPLAINed, lake catalogs that would create files point
// at a scratch warehouse, the databases EXPLAIN, and the MySQL and
// PostgreSQL DDL is tried in a scratch database that is dropped afterwards.
//
// What cannot be checked (an engine that is not reachable, a lake catalog
// whose server is down) is reported as not checked, with the reason, and
// never as an error.
package enginecheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

// Options say which engines to ask and how the rendered lab reaches its
// services.
type Options struct {
	// Gateway is the Flink SQL gateway's URL; "" leaves Flink unchecked.
	Gateway string
	// Face is where the rendered Flink SQL finds the services, as the
	// gateway's machine sees them (render.ComposeFace, or the native face
	// of a running native stack).
	Face render.Face
	// DB are the database endpoints by engine (query.MySQL, …); an engine
	// without one is not checked, and Missing says why.
	DB      map[string]query.Endpoint
	Missing map[string]string
	// Env fills the ${NAME} placeholders of the rendered Flink SQL (the
	// lab's .env).
	Env map[string]string
	// Source locates a query step's SQL in the lab's source (the parser's
	// SQLSourceAt); nil maps a step's errors to its expression.
	Source func(rng hcl.Range, text string) *schemas.SQLSource
	// RenderedDir is the rendered lab directory, for a lab read from
	// lab.json (no source ranges): diagnostics then point at the rendered
	// files.
	RenderedDir string
	// Timeout bounds each statement; zero means two minutes.
	Timeout time.Duration
	// Progress, if set, is told what each engine took.
	Progress func(string)
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

// Result is what the check found.
type Result struct {
	Diags hcl.Diagnostics
	// Checked says what was checked against what, NotChecked what was
	// not and why; one line each.
	Checked, NotChecked []string
	// Files are the rendered files diagnostics point at (for a lab
	// without source ranges), for hcl's diagnostic writer.
	Files map[string]*hcl.File
	// Took is how long the whole check took.
	Took time.Duration
}

func (r *Result) notChecked(format string, args ...any) {
	r.NotChecked = append(r.NotChecked, fmt.Sprintf(format, args...))
}

// add appends d unless the same diagnostic is there already (a lake table
// created in every job's session fails the same way in each).
func (r *Result) add(d *hcl.Diagnostic) {
	for _, x := range r.Diags {
		if x.Summary == d.Summary && x.Detail == d.Detail && x.Subject != nil && d.Subject != nil && *x.Subject == *d.Subject {
			return
		}
	}
	r.Diags = append(r.Diags, d)
}

// Check asks the engines about lab (a model loaded from its source, or
// from lab.json with RenderedDir set).
func Check(ctx context.Context, lab *schemas.Lab, opt Options) (*Result, error) {
	start := time.Now()
	if opt.Timeout == 0 {
		opt.Timeout = 2 * time.Minute
	}
	res := &Result{Files: map[string]*hcl.File{}}
	if lab.Stack.Flink != nil && hasJobs(lab) {
		if err := checkFlink(ctx, lab, opt, res); err != nil {
			return nil, err
		}
	}
	checkDatabases(ctx, lab, opt, res)
	res.Took = time.Since(start)
	return res, nil
}

func hasJobs(l *schemas.Lab) bool {
	for _, j := range l.Jobs {
		if j.Unavailable == "" {
			return true
		}
	}
	return false
}

// scratchDir is a directory for a lake catalog's warehouse that is
// removed after the check.
func scratchDir() (string, func(), error) {
	d, err := os.MkdirTemp("", "labgen-enginecheck-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// renderedRange is a range in a rendered file of opt.RenderedDir, for a
// lab without source ranges; the file is kept for the diagnostic writer.
func (r *Result) renderedRange(dir, rel string, line, col int) *hcl.Range {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if _, ok := r.Files[path]; !ok {
		b, _ := os.ReadFile(path)
		r.Files[path] = &hcl.File{Bytes: b}
	}
	// The byte offsets let hcl's writer show the line.
	b := r.Files[path].Bytes
	off := 0
	for l := 1; l < line && off < len(b); l++ {
		i := strings.IndexByte(string(b[off:]), '\n')
		if i < 0 {
			off = len(b)
			break
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(b) && b[off] != '\n'; c++ {
		_, n := utf8.DecodeRune(b[off:])
		off += n
	}
	end := off
	if end < len(b) {
		_, n := utf8.DecodeRune(b[end:])
		end += n
	}
	return &hcl.Range{Filename: path, Start: hcl.Pos{Line: line, Column: col, Byte: off}, End: hcl.Pos{Line: line, Column: col + 1, Byte: end}}
}

// oneLine shortens an engine's message to its first lines.
func shorten(s string, lines int) string {
	parts := strings.Split(strings.TrimSpace(s), "\n")
	if len(parts) > lines {
		parts = append(parts[:lines], "…")
	}
	return strings.Join(parts, "\n")
}
