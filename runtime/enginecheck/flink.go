package enginecheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/flinksql"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/schemas"
)

// flinkCheck is the Flink part of one check.
type flinkCheck struct {
	lab    *schemas.Lab
	opt    Options
	res    *Result
	client *flinkapi.Client
	// skip names catalogs whose statements cannot be checked, with why.
	skip map[string]string
	// flussUp: the lab's Fluss answers, so its catalog can be opened.
	flussUp    bool
	lake       []flinksql.Statement
	statements int
}

// checkFlink plans every available job through the SQL gateway.
func checkFlink(ctx context.Context, lab *schemas.Lab, opt Options, res *Result) error {
	if opt.Gateway == "" {
		res.notChecked("Flink jobs: no SQL gateway was given")
		return nil
	}
	c := flinkapi.New("", opt.Gateway)
	probe, cancel := context.WithTimeout(ctx, 10*time.Second)
	s, err := c.OpenSession(probe, "labgen check", nil)
	cancel()
	if err != nil {
		res.notChecked("Flink jobs: the SQL gateway at %s does not answer (%v)", opt.Gateway, firstLine(err.Error()))
		return nil
	}
	closeSession(ctx, s)

	fc := &flinkCheck{lab: lab, opt: opt, res: res, client: c, skip: map[string]string{}}
	face := opt.Face
	if face.Name == "" {
		face = render.ComposeFace
	}
	// A lake catalog on a file warehouse creates directories: give it a
	// scratch one, which only works when the gateway shares this
	// machine's file system.
	if local(opt.Gateway) {
		dir, done, err := scratchDir()
		if err != nil {
			return err
		}
		defer done()
		face.Warehouse = dir
	} else {
		for _, k := range schemas.LakeKinds() {
			if k.Lake.OwnWarehouse {
				fc.skip[k.Lake.Catalog] = fmt.Sprintf("the SQL gateway at %s is not on this machine, so its %s catalog cannot be given a scratch warehouse", opt.Gateway, k.Title)
			}
		}
	}
	if lab.Stack.Fluss != nil {
		if err := dial(ctx, face.Fluss); err != nil {
			fc.skip[schemas.FlussCatalog] = fmt.Sprintf("Fluss at %s is not reachable (%v)", face.Fluss, err)
		} else {
			fc.flussUp = true
		}
	}
	files, err := render.FaceFiles(lab, face)
	if err != nil {
		return err
	}
	if b := files[render.LakeTablesFile]; b != nil {
		if fc.lake, err = flinksql.Split(string(b)); err != nil {
			return fmt.Errorf("%s: %w", render.LakeTablesFile, err)
		}
	}
	jobs := 0
	failed := map[string]bool{} // jobs Flink rejected
	for _, j := range lab.Jobs {
		if j.Unavailable != "" {
			res.notChecked("job %s: unavailable in this stack (%s)", j.Name, j.Unavailable)
			continue
		}
		rel := schemas.JobFile(j.Name)
		sts, err := flinksql.Split(string(files[rel]))
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		began, before, diags := time.Now(), fc.statements, len(res.Diags)
		if err := fc.job(ctx, j, rel, sts); err != nil {
			return err
		}
		if len(res.Diags) > diags {
			failed[j.Name] = true
		}
		opt.progress("Flink: job %s, %d statement(s) in %s", j.Name, fc.statements-before, time.Since(began).Round(time.Millisecond))
		jobs++
	}
	// A mutant control's job is planned too: one that Flink rejects would
	// show up only minutes into --controls, as a control not applied.
	mutants := 0
	for _, c := range lab.Controls {
		if c.Mutant == nil || c.Mutant.Unavailable != "" {
			continue
		}
		if failed[c.Mutant.Name] {
			// Made from the job's query, it carries the same mistake:
			// one diagnostic, at the job, says it.
			res.notChecked("control %s's mutant: job %s, which it changes, was rejected", c.Name, c.Mutant.Name)
			continue
		}
		rel := c.MutantFile()
		sts, err := flinksql.Split(string(files[rel]))
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		began, before := time.Now(), fc.statements
		if err := fc.job(ctx, c.Mutant, rel, sts); err != nil {
			return err
		}
		opt.progress("Flink: control %s's mutant of job %s, %d statement(s) in %s", c.Name, c.Mutant.Name, fc.statements-before, time.Since(began).Round(time.Millisecond))
		mutants++
	}
	what := fmt.Sprintf("%d job(s)", jobs)
	if mutants > 0 {
		what += fmt.Sprintf(" and %d mutant(s)", mutants)
	}
	res.Checked = append(res.Checked, fmt.Sprintf("Flink: %s, %d statement(s) planned by the SQL gateway at %s", what, fc.statements, opt.Gateway))
	return nil
}

func closeSession(ctx context.Context, s *flinkapi.Session) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = s.Close(cctx)
}

// job runs one job's statements in a fresh session: SET and CREATE as
// written (temporary objects only), the lake tables it needs first, then
// EXPLAIN of its INSERT or statement set. It stops at the first statement
// Flink rejects: the later ones depend on it.
func (fc *flinkCheck) job(ctx context.Context, j *schemas.Job, rel string, sts []flinksql.Statement) error {
	s, err := fc.client.OpenSession(ctx, "labgen check "+j.Name, nil)
	if err != nil {
		return fmt.Errorf("opening a session on the SQL gateway at %s: %w", fc.opt.Gateway, err)
	}
	defer closeSession(ctx, s)
	js := &jobState{s: s, catalogs: map[string]bool{}}
	needsLake := false
	for _, st := range sts {
		if mentionsCatalog(st.Text) != "" {
			needsLake = true
		}
	}
	if needsLake {
		for _, st := range fc.lake {
			if done := fc.statement(ctx, js, j, render.LakeTablesFile, st, true); done {
				return nil
			}
		}
	}
	for _, st := range sts {
		if done := fc.statement(ctx, js, j, rel, st, false); done {
			return nil
		}
	}
	return nil
}

var (
	createCatalogRe  = regexp.MustCompile(`(?is)^CREATE\s+CATALOG\s+` + "`?" + `(\w+)`)
	createDatabaseRe = regexp.MustCompile(`(?is)^CREATE\s+DATABASE\s+(?:IF\s+NOT\s+EXISTS\s+)?` + "`?" + `(\w+)` + "`?" + `\.`)
	createTempRe     = regexp.MustCompile("(?is)^CREATE\\s+TEMPORARY\\s+(TABLE|VIEW)\\s+`((?:[^`]|``)+)`")
	createLakeRe     = regexp.MustCompile(`(?is)^CREATE\s+TABLE\s`)
	lakeMarkerRe     = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(render.LakeTableMarker) + `(\w+)\.(\w+)\.(\w+)\s*$`)
)

// mentionsCatalog is the lake catalog a statement names, if any.
func mentionsCatalog(text string) string {
	low := strings.ToLower(text)
	for _, c := range schemas.LakeCatalogs() {
		if strings.Contains(low, strings.ToLower(c)) {
			return c
		}
	}
	return ""
}

// inLabService tells whether a catalog is a lake kept by a service of
// the lab (Fluss) rather than in the (scratch) warehouse.
func inLabService(catalog string) bool {
	k := schemas.LakeByCatalog(catalog)
	return k != nil && !k.Lake.OwnWarehouse
}

// jobState is what one job's session holds.
type jobState struct {
	s *flinkapi.Session
	// catalogs were created in the session.
	catalogs map[string]bool
}

// statement runs or explains one statement; done says the job's check
// ends here (Flink rejected something the rest depends on, or the rest
// needs a catalog that cannot be opened).
func (fc *flinkCheck) statement(ctx context.Context, js *jobState, j *schemas.Job, rel string, st flinksql.Statement, lakeFile bool) (done bool) {
	body := strings.TrimSpace(stripLeadingComments(st.Text))
	cat := mentionsCatalog(body)
	why, skipped := fc.skip[cat]
	skipped = skipped && cat != ""
	text, _ := flinkapi.Substitute(st.Text, fc.opt.Env)
	kw := st.Keyword()
	switch {
	case kw == "SET":
	case createCatalogRe.MatchString(body):
		name := createCatalogRe.FindStringSubmatch(body)[1]
		if skipped || js.catalogs[name] {
			return false
		}
		js.catalogs[name] = true
	case createDatabaseRe.MatchString(body):
		// The lab's own Fluss would get the database: only a scratch
		// warehouse may.
		if skipped || inLabService(cat) {
			return false
		}
	case lakeFile && createLakeRe.MatchString(body):
		// Creating a Fluss table would change the lab's Fluss; the job's
		// EXPLAIN finds it there if the lab made it.
		if skipped || inLabService(cat) {
			return false
		}
	case createTempRe.MatchString(body):
		if skipped {
			fc.res.notChecked("job %s: its query reads %s: %s", j.Name, cat, why)
			return true
		}
	case kw == "INSERT" || kw == "EXECUTE" || kw == "STATEMENT" || kw == "BEGIN":
		inserts := []string{body}
		if kw != "INSERT" {
			inserts = setInserts(body)
		}
		var keep []string
		for _, ins := range inserts {
			if c := mentionsCatalog(ins); c != "" && fc.skip[c] != "" {
				fc.res.notChecked("job %s: `%s`: %s", j.Name, firstLine(ins), fc.skip[c])
				continue
			}
			keep = append(keep, ins)
		}
		switch len(keep) {
		case 0:
			return true
		case 1:
			text = "EXPLAIN " + keep[0]
		default:
			text = "EXPLAIN STATEMENT SET BEGIN\n" + strings.Join(keep, ";\n") + ";\nEND"
		}
		text, _ = flinkapi.Substitute(text, fc.opt.Env)
	default:
		// Nothing else is rendered; run it as it comes.
	}
	fc.statements++
	sctx, cancel := context.WithTimeout(ctx, fc.opt.Timeout)
	began := time.Now()
	_, err := js.s.Execute(sctx, text, 100)
	cancel()
	if took := time.Since(began); took > 2*time.Second {
		fc.opt.progress("Flink: job %s: `%s` took %s", j.Name, firstLine(stripLeadingComments(text)), took.Round(time.Millisecond))
	}
	if err == nil {
		return false
	}
	if ctx.Err() != nil {
		return true
	}
	msg := flinkMessage(err)
	if m := createCatalogRe.FindStringSubmatch(body); m != nil {
		// labgen writes the catalogs' options; one that does not open
		// says the server is not there as the gateway sees it.
		delete(js.catalogs, m[1])
		fc.skip[m[1]] = "the SQL gateway could not open the catalog: " + firstLine(rootMessage(msg))
		return false
	}
	if fc.flussUp && strings.Contains(strings.ToLower(body), schemas.FlussCatalog) && missingLakeObject(msg) {
		why := "the lab's Fluss does not have its tables yet (labgen run creates them before the jobs): " + firstLine(rootMessage(msg))
		if kw != "INSERT" && fc.skip[schemas.FlussCatalog] == "" {
			// A statement set: plan its other INSERTs without Fluss.
			fc.skip[schemas.FlussCatalog] = why
			fc.statements--
			return fc.statement(ctx, js, j, rel, st, lakeFile)
		}
		fc.res.notChecked("job %s: %s", j.Name, why)
		return true
	}
	var fe *flinkapi.Error
	if !errors.As(err, &fe) && !strings.Contains(err.Error(), "HTTP") {
		fc.res.notChecked("job %s: the SQL gateway at %s failed: %v", j.Name, fc.opt.Gateway, firstLine(err.Error()))
		return true
	}
	fc.res.add(fc.diagnostic(j, rel, st, text, body, msg, lakeFile))
	return true
}

// diagnostic places what Flink said of a statement at the lab's source.
func (fc *flinkCheck) diagnostic(j *schemas.Job, rel string, st flinksql.Statement, sent, body, msg string, lakeFile bool) *hcl.Diagnostic {
	root := rootMessage(msg)
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Flink rejects job " + j.Name,
		Detail: fmt.Sprintf("Flink's planner (SQL gateway at %s) rejects %s:\n%s", fc.opt.Gateway, describe(st, body, j), shorten(root, 8))}
	line, col, endLine, endCol, hasPos := flinkPosition(msg)
	srcRange := func(r hcl.Range) { d.Subject = &r }
	switch {
	case createTempRe.MatchString(body) && strings.EqualFold(createTempRe.FindStringSubmatch(body)[1], "VIEW"):
		d.Summary = "Flink rejects the query of job " + j.Name
		q := strings.TrimSpace(j.Query)
		lead := strings.Index(j.Query, q)
		at := strings.Index(sent, q)
		if hasPos && at >= 0 && lead >= 0 {
			off := offsetOf(sent, line, col) - at
			end := offsetOf(sent, endLine, endCol) - at
			if end < off {
				end = off
			}
			// Calcite's end column is the last character's.
			if endLine > 0 {
				_, n := utf8.DecodeRuneInString(sent[min(len(sent)-1, at+end):])
				end += n
			}
			if off >= 0 && off <= len(q) {
				if r, ok := j.QuerySource.Range(lead+off, lead+min(end, len(q))); ok {
					srcRange(r)
					break
				}
				if fc.opt.RenderedDir != "" {
					sline, scol := lineCol(sent, at+off)
					d.Subject = fc.res.renderedRange(fc.opt.RenderedDir, rel, st.Line+sline-1-commentLines(sent), scol)
					// Say where the lab has it, too (lab.json keeps no
					// source positions).
					qline, qcol := lineCol(q, off)
					where := fmt.Sprintf("%s, line %d, column %d", j.QueryFile, qline, qcol)
					if j.QueryFile == "" {
						where = fmt.Sprintf("line %d, column %d of the query of job %s in its .hcl file", qline, qcol, j.Name)
					}
					d.Detail += "\nIn the lab's source: " + where + "."
					break
				}
			}
		}
		// No position (a window's checks say none): the function or name
		// the message quotes, where the query has it.
		if i, n := nameIn(q, root); i >= 0 {
			if r, ok := j.QuerySource.Range(lead+i, lead+i+n); ok && j.DeclRange.Filename != "" {
				srcRange(r)
				break
			}
		}
		if r, ok := j.QuerySource.Range(lead, lead+len(q)); ok && j.DeclRange.Filename != "" {
			r.End = r.Start
			srcRange(r)
		}
	case createTempRe.MatchString(body):
		name := strings.ReplaceAll(createTempRe.FindStringSubmatch(body)[2], "``", "`")
		if t := fc.lab.Table(name); t != nil && t.DeclRange.Filename != "" {
			d.Summary = "Flink rejects table " + name + " as job " + j.Name + " declares it"
			srcRange(t.DeclRange)
		}
	case lakeFile:
		if m := lakeMarkerRe.FindStringSubmatch(st.Text); m != nil {
			for _, t := range fc.lab.Tables {
				for _, s := range t.Stores {
					if s.Database == m[2] && s.Name == m[3] && t.DeclRange.Filename != "" {
						d.Summary = "Flink rejects the lake table of " + t.Name
						srcRange(t.DeclRange)
					}
				}
			}
		}
	default:
		// A sink column the query's output does not fit is named: point
		// at it in the query.
		if m := sinkColumn.FindStringSubmatch(root); m != nil {
			q := strings.TrimSpace(j.Query)
			lead := strings.Index(j.Query, q)
			if i := lastWord(q, m[1]); i >= 0 && lead >= 0 {
				if r, ok := j.QuerySource.Range(lead+i, lead+i+len(m[1])); ok && j.DeclRange.Filename != "" {
					d.Summary = "Flink rejects the output of job " + j.Name
					srcRange(r)
					break
				}
			}
		}
		// A connector's error names the table whose options it refused.
		if m := tableInMessage.FindStringSubmatch(root); m != nil {
			parts := strings.Split(m[1], ".")
			if t := fc.lab.Table(parts[len(parts)-1]); t != nil && t.DeclRange.Filename != "" {
				srcRange(t.DeclRange)
			}
		}
	}
	if d.Subject == nil {
		if j.DeclRange.Filename != "" {
			srcRange(j.DeclRange)
		} else if fc.opt.RenderedDir != "" {
			d.Subject = fc.res.renderedRange(fc.opt.RenderedDir, rel, st.Line, 1)
		}
	}
	return d
}

// setInserts are the INSERTs of a statement set, as labgen renders it.
func setInserts(body string) []string {
	i := strings.Index(strings.ToUpper(body), "BEGIN")
	j := strings.LastIndex(strings.ToUpper(body), "END")
	if i < 0 || j < i {
		return []string{body}
	}
	sts, err := flinksql.Split(body[i+len("BEGIN") : j])
	if err != nil {
		return []string{body}
	}
	var out []string
	for _, st := range sts {
		out = append(out, strings.TrimSpace(st.Text))
	}
	return out
}

var (
	funcInMessage   = regexp.MustCompile(`\b([A-Z][A-Z0-9_]*)\(`)
	quotedInMessage = regexp.MustCompile(`'([^'\s]+)'`)
)

// nameIn finds in q the first function (NAME( ) or quoted name the
// message mentions: where and how long, or -1.
func nameIn(q, msg string) (int, int) {
	var names []string
	for _, m := range funcInMessage.FindAllStringSubmatch(msg, -1) {
		names = append(names, m[1]+"(")
	}
	for _, m := range quotedInMessage.FindAllStringSubmatch(msg, -1) {
		names = append(names, m[1])
	}
	up := strings.ToUpper(q)
	for _, n := range names {
		if i := strings.Index(up, strings.ToUpper(n)); i >= 0 {
			return i, len(strings.TrimSuffix(n, "("))
		}
	}
	return -1, 0
}

var sinkColumn = regexp.MustCompile(`sink column '([^']+)'`)

// lastWord is where the query names a column last as a whole word (its
// alias in the outer SELECT, usually), or -1.
func lastWord(q, name string) int {
	re := regexp.MustCompile("(?i)(^|[^\\w`])`?" + regexp.QuoteMeta(name) + "`?($|[^\\w`])")
	ms := re.FindAllStringSubmatchIndex(q, -1)
	if len(ms) == 0 {
		return -1
	}
	m := ms[len(ms)-1]
	i := m[3] // after the leading boundary
	if i < len(q) && q[i] == '`' {
		i++
	}
	return i
}

var tableInMessage = regexp.MustCompile(`table '([^']+)'`)

// describe names the statement for a message.
func describe(st flinksql.Statement, body string, j *schemas.Job) string {
	if m := createTempRe.FindStringSubmatch(body); m != nil && strings.EqualFold(m[1], "VIEW") {
		return "the query of job " + j.Name
	}
	first := firstLine(body)
	if len(first) > 90 {
		first = first[:90] + "…"
	}
	return fmt.Sprintf("`%s` (line %d of the rendered job %s)", strings.TrimSuffix(first, " …"), st.Line, j.Name)
}

// flinkMessage is Flink's exception chain of a failed statement.
func flinkMessage(err error) string {
	var fe *flinkapi.Error
	if errors.As(err, &fe) {
		return fe.Message
	}
	return err.Error()
}

var classPrefix = regexp.MustCompile(`^(?:[a-z][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error): `)

// rootMessage is the root cause without its Java class name.
func rootMessage(msg string) string {
	root := flinkapi.RootCause(msg)
	return classPrefix.ReplaceAllString(root, "")
}

// missingLakeObject tells whether Flink's message says a table or
// database of the Fluss catalog does not exist (Calcite's "Object … not
// found within 'fluss_catalog…'", the catalog's "… does not exist in
// Catalog fluss_catalog", the planner's "Cannot find table
// '`fluss_catalog`.…'" for an INSERT's target), not that a column or
// function is unknown.
func missingLakeObject(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "not found within '"+schemas.FlussCatalog) ||
		strings.Contains(m, "cannot find table '`"+schemas.FlussCatalog+"`.") ||
		strings.Contains(m, "does not exist") && strings.Contains(m, schemas.FlussCatalog)
}

var positionRe = regexp.MustCompile(`line (\d+), column (\d+)(?: to line (\d+), column (\d+))?`)

// flinkPosition is the first "line L, column C [to line L2, column C2]"
// of Flink's message (Calcite's parser and validator say so).
func flinkPosition(msg string) (line, col, endLine, endCol int, ok bool) {
	m := positionRe.FindStringSubmatch(msg)
	if m == nil {
		return 0, 0, 0, 0, false
	}
	line, _ = strconv.Atoi(m[1])
	col, _ = strconv.Atoi(m[2])
	endLine, endCol = line, col
	if m[3] != "" {
		endLine, _ = strconv.Atoi(m[3])
		endCol, _ = strconv.Atoi(m[4])
	} else {
		endLine = 0
	}
	return line, col, endLine, endCol, true
}

// offsetOf is the byte offset of 1-based line and column (in
// characters) of s; -1 when s has no such line.
func offsetOf(s string, line, col int) int {
	if line <= 0 {
		return -1
	}
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(s) && s[off] != '\n'; c++ {
		_, n := utf8.DecodeRuneInString(s[off:])
		off += n
	}
	return off
}

// lineCol is the 1-based line and column of byte off of s.
func lineCol(s string, off int) (int, int) {
	off = max(0, min(off, len(s)))
	line := 1 + strings.Count(s[:off], "\n")
	start := strings.LastIndexByte(s[:off], '\n') + 1
	return line, 1 + utf8.RuneCountInString(s[start:off])
}

// commentLines is how many lines of comments sent has before its
// statement, which flinksql counts the statement's line from.
func commentLines(sent string) int {
	return strings.Count(sent[:len(sent)-len(stripLeadingComments(sent))], "\n")
}

// stripLeadingComments drops the -- comment lines a split statement
// starts with.
func stripLeadingComments(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\r\n")
		if !strings.HasPrefix(t, "--") {
			return t
		}
		i := strings.IndexByte(t, '\n')
		if i < 0 {
			return ""
		}
		s = t[i+1:]
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// local tells whether a URL's host is this machine.
func local(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func dial(ctx context.Context, addr string) error {
	if addr == "" {
		return fmt.Errorf("no address")
	}
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := new(net.Dialer).DialContext(dctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}
