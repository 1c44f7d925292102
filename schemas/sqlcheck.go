package schemas

import (
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
	// lines are the offsets in src of each line of the text, for a text
	// found line by line (a heredoc whose indentation was stripped).
	lines []int
	// tstarts are the offsets in the text of its lines.
	tstarts []int
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
		raw, err := readLabFile(d.dir, path)
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
	} else if lines := linesIn(f.Bytes, r, text); lines != nil {
		s.file, s.src, s.base, s.lines = r.Filename, f.Bytes, r.Start.Byte, lines
		for i, off := 0, 0; i < len(lines); i++ {
			s.tstarts = append(s.tstarts, off)
			off += len(strings.SplitN(text[off:], "\n", 2)[0]) + 1
		}
	}
	return s
}

// linesIn finds text in src's range r line by line, as a <<- heredoc
// keeps it: the text's first line ends a source line that has only
// blanks before it, and each further line is the next source line with
// the same indentation stripped (a line changed by an interpolation keeps
// its columns up to it). It returns where each text line starts, or nil.
func linesIn(src []byte, r hcl.Range, text string) []int {
	want := strings.Split(text, "\n")
	var starts []int // offsets of the source lines in r
	for off := r.Start.Byte; off < r.End.Byte; {
		starts = append(starts, off)
		i := strings.IndexByte(string(src[off:r.End.Byte]), '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	lineAt := func(k int) string {
		end := r.End.Byte
		if k+1 < len(starts) {
			end = starts[k+1] - 1
		}
		return strings.TrimRight(string(src[starts[k]:end]), "\r")
	}
	for k := 0; k+len(want) <= len(starts); k++ {
		l := lineAt(k)
		if !strings.HasSuffix(l, want[0]) || strings.TrimSpace(l[:len(l)-len(want[0])]) != "" {
			continue
		}
		indent := len(l) - len(want[0])
		out := make([]int, len(want))
		for i, w := range want {
			l := lineAt(k + i)
			if strings.HasSuffix(l, w) && strings.TrimSpace(l[:len(l)-len(w)]) == "" {
				out[i] = starts[k+i] + len(l) - len(w)
			} else {
				out[i] = starts[k+i] + min(indent, len(l))
			}
		}
		return out
	}
	return nil
}

// rng is the source range of text[pos:end].
func (s *sqlSource) rng(pos, end int) hcl.Range {
	if s.base < 0 {
		return s.fallback
	}
	return hcl.Range{Filename: s.file, Start: s.pos(s.offset(pos)), End: s.pos(s.offset(end))}
}

// offset is the offset in src of the text's byte off.
func (s *sqlSource) offset(off int) int {
	if s.lines == nil {
		return s.base + off
	}
	// Found line by line: off's line in the text, then its column.
	i := sort.SearchInts(s.tstarts, off+1) - 1
	i = max(0, min(i, len(s.lines)-1))
	return s.lines[i] + off - s.tstarts[i]
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
	if !d.oneStatement(j, src) {
		return // what follows would only add noise
	}
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
				d.errorf(rng, "Query reads an undeclared table", "The query of job %s names %s, but no table of this lab is called so; declare it and add it to reads.%s", j.Name, ref.Name(), d.tableHint(name))
			}
		case 3:
			cat := strings.ToLower(ref.Parts[0])
			if LakeByCatalog(cat) == nil {
				d.errorf(rng, "Query reads an unknown catalog", "Job %s names %s; the rendered job has only %s besides plain table names.", j.Name, strings.Join(ref.Parts, "."), joinList(LakeCatalogs(), "and"))
				continue
			}
			t, _, _ := strings.Cut(name, "$")
			if d.lab.Table(t) == nil || !contains(j.Reads, t) {
				d.errorf(rng, "Query reads an undeclared table", "The query of job %s names %s.%s.%s; add table.%s to reads (and declare the table) so its definition is rendered.", j.Name, ref.Parts[0], ref.Parts[1], ref.Parts[2], t)
			}
		default:
			d.errorf(rng, "Query reads an unknown catalog", "Job %s names %s; write a read table by its plain name or as %s.", j.Name, strings.Join(ref.Parts, "."), joinList(lakeRefs("<db>", "<table>"), "or"))
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

// oneStatement checks that a job's query (or the query of a control
// that replaces it) is one statement, split as Flink's SQL client and
// labgen's runtime split the rendered job: on semicolons outside quotes
// and comments. labgen renders it as INSERT INTO … followed by the
// query, so a statement after a semicolon would run on its own (a DROP
// TABLE in the middle of a job's SQL), and an empty query inserts
// nothing at all.
func (d *decoder) oneStatement(j *Job, src *sqlSource) bool {
	sts, err := flinksql.Split(j.Query)
	switch {
	case err != nil:
		d.errorf(src.rng(0, len(j.Query)), "Unreadable job query", "The query of job %s cannot be split into statements as Flink's SQL client splits it: %s.", j.Name, err)
		return false
	case len(sts) == 0:
		d.errorf(src.rng(0, len(j.Query)), "Empty job query", "The query of job %s holds no SQL, only blanks or comments; it must be the SELECT whose rows the job writes into %s.", j.Name, j.Writes)
		return false
	case len(sts) > 1:
		off := 0
		for i, st := range sts {
			at := strings.Index(j.Query[off:], st.Text)
			if at < 0 {
				break // cannot be: each statement is a part of the query
			}
			off += at
			if i > 0 {
				d.errorf(src.rng(off, off+len(st.Text)), "More than one statement in a job query",
					"A job's query is one SELECT: labgen renders it as INSERT INTO %s followed by the query, so this statement after a semicolon would run on its own in the job's SQL. Remove it and the semicolon before it, or make it a job of its own.", j.Writes)
			}
			off += len(st.Text)
		}
		return false
	}
	return true
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
	d.checkJobOutputTypes(j, src, toks, items, out)
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
	cols := make([]string, 0, len(t.Columns))
	for _, c := range t.Columns {
		cols = append(cols, c.Name)
	}
	switch best := closest(name, cols); {
	case best != "" && strings.EqualFold(best, name):
		return " Flink's names are case-sensitive: did you mean " + best + "?"
	case best != "":
		return " Did you mean " + best + "?"
	}
	sort.Strings(cols)
	return " Its columns are " + strings.Join(cols, ", ") + "."
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

// sqlType is what the output check knows of an item's type: its family
// and, for numbers, its rank in Flink's implicit widening order (TINYINT
// < SMALLINT < INT < BIGINT < DECIMAL < FLOAT < DOUBLE).
type sqlType struct {
	family string // "number", "string", "boolean", "time"
	rank   int
	name   string // as written in messages
}

var numberRank = map[TypeKind]int{TypeTinyInt: 1, TypeSmallInt: 2, TypeInt: 3, TypeBigInt: 4, TypeDecimal: 5, TypeFloat: 6, TypeDouble: 7}

func typeOfColumn(t LogicalType) sqlType {
	switch {
	case numberRank[t.Kind] > 0:
		return sqlType{family: "number", rank: numberRank[t.Kind], name: t.Flink()}
	case t.Kind == TypeString:
		return sqlType{family: "string", name: t.Flink()}
	case t.Kind == TypeBoolean:
		return sqlType{family: "boolean", name: t.Flink()}
	case t.Kind == TypeDate || t.Kind == TypeTimestamp:
		return sqlType{family: "time", name: t.Flink()}
	}
	return sqlType{}
}

// castTypes are the Flink type names a CAST may name, by their first word.
var castTypes = map[string]sqlType{
	"TINYINT": {"number", 1, "TINYINT"}, "SMALLINT": {"number", 2, "SMALLINT"}, "INT": {"number", 3, "INT"},
	"INTEGER": {"number", 3, "INT"}, "BIGINT": {"number", 4, "BIGINT"}, "DECIMAL": {"number", 5, "DECIMAL"},
	"DEC": {"number", 5, "DECIMAL"}, "NUMERIC": {"number", 5, "DECIMAL"}, "FLOAT": {"number", 6, "FLOAT"},
	"REAL": {"number", 6, "FLOAT"}, "DOUBLE": {"number", 7, "DOUBLE"},
	"STRING": {"string", 0, "STRING"}, "VARCHAR": {"string", 0, "VARCHAR"}, "CHAR": {"string", 0, "CHAR"},
	"BOOLEAN": {"boolean", 0, "BOOLEAN"},
	"DATE":    {"time", 0, "DATE"}, "TIMESTAMP": {"time", 0, "TIMESTAMP"}, "TIMESTAMP_LTZ": {"time", 0, "TIMESTAMP_LTZ"},
}

// assignable tells whether Flink inserts a value of type from into a
// column of type to without an explicit CAST, conservatively: a
// different family never, a number only into a number of the same or a
// higher rank; within strings and times anything (lengths and precisions
// are cast implicitly).
func assignable(from, to sqlType) bool {
	if from.family != to.family {
		return false
	}
	return from.family != "number" || from.rank <= to.rank
}

// itemType is the type of a SELECT item when it is obvious: a literal, a
// CAST, or (when columns is not nil) a plain reference to a column of a
// read table whose columns of that name all have one type. ok is false
// otherwise. A literal number is only known to be a number: Flink types
// it by its digits.
func itemType(toks []flinksql.Token, it flinksql.Item, columns map[string][]LogicalType) (t sqlType, literal, ok bool) {
	var expr []flinksql.Token
	for _, tk := range toks {
		if tk.Pos >= it.Pos && tk.End <= it.End {
			expr = append(expr, tk)
		}
	}
	if len(expr) == 0 {
		return sqlType{}, false, false
	}
	// The alias, unless the item is a plain reference named by its
	// last part.
	if !isRef(expr) && it.Name != "" && len(expr) >= 2 && expr[len(expr)-1].Pos == it.NamePos {
		expr = expr[:len(expr)-1]
		if len(expr) >= 2 && expr[len(expr)-1].Is("AS") {
			expr = expr[:len(expr)-1]
		}
	}
	if isRef(expr) {
		if columns == nil {
			return sqlType{}, false, false
		}
		cands := columns[expr[len(expr)-1].Text]
		if len(cands) == 0 {
			return sqlType{}, false, false
		}
		t := typeOfColumn(cands[0])
		for _, c := range cands[1:] {
			if typeOfColumn(c) != t {
				return sqlType{}, false, false
			}
		}
		return t, false, t.family != ""
	}
	if len(expr) == 1 {
		switch e := expr[0]; {
		case e.Kind == flinksql.String:
			return sqlType{family: "string", name: "a string literal"}, true, true
		case e.Kind == flinksql.Number:
			return sqlType{family: "number", name: "a number literal"}, true, true
		case e.Is("TRUE") || e.Is("FALSE"):
			return sqlType{family: "boolean", name: "BOOLEAN"}, true, true
		}
		return sqlType{}, false, false
	}
	// CAST(… AS type): the type is the word after the last AS at the
	// CAST's own depth, and the CAST spans the whole expression.
	if len(expr) >= 6 && (expr[0].Is("CAST") || expr[0].Is("TRY_CAST")) && expr[1].Text == "(" && expr[len(expr)-1].Text == ")" {
		depth, as := 0, -1
		for k := 1; k < len(expr); k++ {
			switch {
			case expr[k].Kind == flinksql.Symbol && expr[k].Text == "(":
				depth++
			case expr[k].Kind == flinksql.Symbol && expr[k].Text == ")":
				depth--
				if depth == 0 && k != len(expr)-1 {
					return sqlType{}, false, false
				}
			case depth == 1 && expr[k].Is("AS"):
				as = k
			}
		}
		if as > 0 && as+1 < len(expr) {
			if ct, ok := castTypes[strings.ToUpper(expr[as+1].Text)]; ok && expr[as+1].Kind == flinksql.Word {
				return ct, false, true
			}
		}
	}
	return sqlType{}, false, false
}

// isRef tells whether expr is a plain column reference: col, t.col,
// db.t.col (TRUE, FALSE and NULL are words, not columns).
func isRef(expr []flinksql.Token) bool {
	if len(expr)%2 == 0 || len(expr) == 1 && (expr[0].Is("TRUE") || expr[0].Is("FALSE") || expr[0].Is("NULL")) {
		return false
	}
	for k, tk := range expr {
		if k%2 == 0 && !tk.Ident() || k%2 == 1 && !(tk.Kind == flinksql.Symbol && tk.Text == ".") {
			return false
		}
	}
	return true
}

// checkJobOutputTypes warns about output columns whose type, where it is
// obvious, Flink would not insert into the written column without a
// CAST ("Incompatible types for sink column").
func (d *decoder) checkJobOutputTypes(j *Job, src *sqlSource, toks []flinksql.Token, items []flinksql.Item, out *Table) {
	// Column references are typed only in a query with one SELECT: a
	// subquery or a WITH may give a name another type.
	var columns map[string][]LogicalType
	selects := 0
	for _, t := range toks {
		if t.Is("SELECT") {
			selects++
		}
	}
	if selects == 1 {
		columns = map[string][]LogicalType{}
		for _, r := range j.Reads {
			if t := d.lab.Table(r); t != nil {
				for _, c := range t.Columns {
					columns[c.Name] = append(columns[c.Name], c.Type)
				}
			}
		}
	}
	for _, it := range items {
		c := out.Column(it.Name)
		if it.Star || it.Name == "" || c == nil {
			continue
		}
		to := typeOfColumn(c.Type)
		from, literal, ok := itemType(toks, it, columns)
		if !ok || to.family == "" {
			continue
		}
		if literal && from.family == to.family {
			continue
		}
		if !assignable(from, to) {
			d.warnf(src.rng(it.Pos, it.End), "Output column type does not fit", "Job %s writes %s into %s.%s, which is %s; Flink does not cast it implicitly and rejects the INSERT (\"Incompatible types for sink column\"). Write CAST(… AS %s).", j.Name, from.name, out.Name, c.Name, to.name, to.name)
		}
	}
}
