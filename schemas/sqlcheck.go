package schemas

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/flinksql"
)

// sqlSource maps byte offsets of a job's query or a preset's SQL, as the
// model holds it, back to the lab's own source: the line inside
// jobs/*.sql or presets/*.sql for file("…"), the string inside the .hcl
// file for a quoted literal. Where the text cannot be found verbatim (a
// heredoc strips indentation, escapes change bytes), every position falls
// back to the attribute's expression.
type sqlSource struct {
	file     string
	src      []byte
	base     int // offset of the text's first byte in src; -1 if not found
	fallback hcl.Range
}

// sqlSourceOf locates text, the trimmed value of attribute a. A SQL file
// read by file() is registered with the parser so that diagnostics show
// its lines.
func (d *decoder) sqlSourceOf(a *hcl.Attribute, text string) *sqlSource {
	s := &sqlSource{base: -1, fallback: a.Expr.Range()}
	if text == "" {
		return s
	}
	if path := fileArg(a.Expr); path != "" {
		full := filepath.Join(d.dir, path)
		raw, err := os.ReadFile(full)
		if err != nil {
			return s
		}
		lead := len(raw) - len(strings.TrimLeftFunc(string(raw), unicode.IsSpace))
		if !strings.HasPrefix(string(raw[lead:]), text) {
			return s
		}
		s.file, s.src, s.base = full, raw, lead
		if d.parser != nil && d.parser.p.Files()[full] == nil {
			d.parser.p.AddFile(full, &hcl.File{Bytes: raw})
		}
		return s
	}
	r := a.Expr.Range()
	if d.parser == nil {
		return s
	}
	f := d.parser.p.Files()[r.Filename]
	if f == nil || r.End.Byte > len(f.Bytes) || r.Start.Byte > r.End.Byte {
		return s
	}
	if i := strings.Index(string(f.Bytes[r.Start.Byte:r.End.Byte]), text); i >= 0 {
		s.file, s.src, s.base = r.Filename, f.Bytes, r.Start.Byte+i
	}
	return s
}

// rng is the source range of text[pos:end].
func (s *sqlSource) rng(pos, end int) hcl.Range {
	if s.base < 0 {
		return s.fallback
	}
	return hcl.Range{Filename: s.file, Start: s.pos(s.base + pos), End: s.pos(s.base + end)}
}

func (s *sqlSource) pos(off int) hcl.Pos {
	off = max(0, min(off, len(s.src)))
	line, col := 1, 1
	for i := 0; i < off; {
		r, n := utf8.DecodeRune(s.src[i:])
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return hcl.Pos{Line: line, Column: col, Byte: off}
}

// checkJobQuery reads a job's query statically: the tables it names must
// be declared in reads, its output columns must be the written table's,
// and bare identifiers must not be Flink's reserved words.
func (d *decoder) checkJobQuery(j *Job, src *sqlSource, out *Table) {
	toks := flinksql.Lex(j.Query)
	for _, ref := range flinksql.TableRefs(toks) {
		name := strings.ToLower(ref.Name())
		rng := src.rng(ref.Pos, ref.End)
		switch len(ref.Parts) {
		case 1:
			if contains(j.Reads, name) {
				continue
			}
			if d.lab.Table(name) != nil {
				d.errorf(rng, "Query reads an undeclared table", "The query of job %s names %s, which is not in its reads; add table.%s to reads so its definition is rendered.", j.Name, ref.Name(), name)
			} else {
				d.errorf(rng, "Query reads an undeclared table", "The query of job %s names %s, but no table of this lab is called so; declare it and add it to reads.", j.Name, ref.Name())
			}
		case 3:
			cat := strings.ToLower(ref.Parts[0])
			if cat != FlussCatalog && cat != IcebergCatalog {
				d.errorf(rng, "Query reads an unknown catalog", "Job %s names %s; the rendered job has only %s and %s besides plain table names.", j.Name, strings.Join(ref.Parts, "."), FlussCatalog, IcebergCatalog)
				continue
			}
			t, _, _ := strings.Cut(name, "$")
			if d.lab.Table(t) == nil || !contains(j.Reads, t) {
				d.errorf(rng, "Query reads an undeclared table", "The query of job %s names %s.%s.%s; add table.%s to reads (and declare the table) so its definition is rendered.", j.Name, ref.Parts[0], ref.Parts[1], ref.Parts[2], t)
			}
		default:
			d.errorf(rng, "Query reads an unknown catalog", "Job %s names %s; write a read table by its plain name or as %s.<db>.<table> / %s.<db>.<table>.", j.Name, strings.Join(ref.Parts, "."), FlussCatalog, IcebergCatalog)
		}
	}

	if out != nil {
		d.checkJobOutput(j, src, toks, out)
	}

	names := map[string]bool{}
	for _, r := range append(append([]string{}, j.Reads...), j.Writes) {
		if t := d.lab.Table(r); t != nil {
			names[strings.ToLower(t.Name)] = true
			for _, c := range t.Columns {
				names[strings.ToLower(c.Name)] = true
			}
			if t.Time != nil && t.Time.Processing != "" {
				names[strings.ToLower(t.Time.Processing)] = true
			}
		}
	}
	d.warnReserved("flink", "Flink", j.Query, src, toks, names)
}

// checkJobOutput compares the names of the query's output columns with the
// written table's columns: labgen inserts them by name, so a misspelt
// alias or a dropped column fails in Flink's planner ("Column 'x' not
// found"). A star keeps the names unknown and the check silent.
func (d *decoder) checkJobOutput(j *Job, src *sqlSource, toks []flinksql.Token, out *Table) {
	items, selectPos, ok := flinksql.SelectList(toks)
	if !ok {
		return
	}
	for _, it := range items {
		if it.Star {
			return
		}
	}
	seen := map[string]bool{}
	for _, it := range items {
		if it.Name == "" {
			d.errorf(src.rng(it.Pos, it.End), "Output column without a name", "Flink names this column EXPR$n, so it cannot be inserted into %s by name; end it with AS <column>.", out.Name)
			continue
		}
		rng := src.rng(it.NamePos, it.NameEnd)
		if seen[it.Name] {
			d.errorf(rng, "Duplicate output column", "The query of job %s yields %q twice.", j.Name, it.Name)
			continue
		}
		seen[it.Name] = true
		if out.Column(it.Name) == nil {
			d.errorf(rng, "Output column not in the written table", "Job %s writes %s, which has no column %q.%s", j.Name, out.Name, it.Name, suggestColumn(out, it.Name))
		}
	}
	var missing []string
	for _, c := range out.Columns {
		if !seen[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	if len(missing) > 0 {
		s := ""
		if len(missing) > 1 {
			s = "s"
		}
		d.errorf(src.rng(selectPos, selectPos+len("SELECT")), "Column missing from the job's output", "Job %s writes %s, but its query yields %d column(s) and none named %s: the table's column%s %s would have no value.", j.Name, out.Name, len(items), quoteList(missing), s, strings.Join(missing, ", "))
	}
}

// suggestColumn names the closest column of t, if one is close.
func suggestColumn(t *Table, name string) string {
	best, dist := "", 3
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return " Flink's names are case-sensitive: did you mean " + c.Name + "?"
		}
		if k := editDistance(c.Name, name); k < dist {
			best, dist = c.Name, k
		}
	}
	if best != "" {
		return " Did you mean " + best + "?"
	}
	cols := make([]string, 0, len(t.Columns))
	for _, c := range t.Columns {
		cols = append(cols, c.Name)
	}
	sort.Strings(cols)
	return " Its columns are " + strings.Join(cols, ", ") + "."
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// warnReserved warns about reserved words used as bare names.
func (d *decoder) warnReserved(engine, engineName, text string, src *sqlSource, toks []flinksql.Token, names map[string]bool) {
	for _, t := range flinksql.BareReserved(engine, toks, names) {
		d.warnf(src.rng(t.Pos, t.End), "Reserved word as a name", "%s is a reserved word in %s's SQL; as a name it must be quoted: `%s`.", strings.ToUpper(t.Text), engineName, t.Text)
	}
}

// checkPresetSQL warns about reserved words in a preset's SQL. ClickHouse
// reserves no word outside its grammar, so only MySQL's are checked.
func (d *decoder) checkPresetSQL(p *Preset, src *sqlSource) {
	if p.Engine != EngineMySQL {
		return
	}
	names := map[string]bool{}
	for _, t := range d.lab.Tables {
		if s := t.Store(StoreMySQL); s != nil {
			names[strings.ToLower(s.Name)] = true
			for _, c := range t.Columns {
				names[strings.ToLower(c.Name)] = true
			}
		}
	}
	d.warnReserved("mysql", "MySQL", p.SQL, src, flinksql.Lex(p.SQL), names)
}
