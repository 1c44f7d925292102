package flinksql

import (
	"strings"
)

// The reader below is not a parser: it finds, in one query, the few things
// validate checks statically (the tables named after FROM and JOIN, the
// names of the top-level SELECT's output columns, bare identifiers). Where
// it cannot tell, it says so, so that checks stay silent rather than wrong.

// TokenKind is the kind of a Token.
type TokenKind int

// Token kinds.
const (
	Word   TokenKind = iota // a bare word: keyword or identifier
	Quoted                  // a `quoted` identifier; Text is unquoted
	String                  // a 'string' literal
	Number
	Symbol
)

// Token is one token of a query; Pos and End are byte offsets into it.
type Token struct {
	Kind     TokenKind
	Text     string
	Pos, End int
}

// Is tells whether t is the bare word w, in any case.
func (t Token) Is(w string) bool { return t.Kind == Word && strings.EqualFold(t.Text, w) }

// Ident tells whether t can name something: a bare word or a quoted name.
func (t Token) Ident() bool { return t.Kind == Word || t.Kind == Quoted }

// Lex splits a query into tokens, dropping whitespace and comments. It
// never fails: an unclosed quote or comment runs to the end.
func Lex(sql string) []Token {
	var out []Token
	n := len(sql)
	for i := 0; i < n; {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < n && sql[i+1] == '-':
			for i < n && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = n
			} else {
				i += 2 + end + 2
			}
		case c == '\'' || c == '`' || c == '"':
			start := i
			i++
			var b strings.Builder
			for i < n {
				if sql[i] == c {
					if i+1 < n && sql[i+1] == c { // a doubled quote
						b.WriteByte(c)
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(sql[i])
				i++
			}
			kind := Quoted
			if c == '\'' {
				kind = String
			}
			out = append(out, Token{kind, b.String(), start, i})
		case isWordStart(c):
			start := i
			for i < n && isWordPart(sql[i]) {
				i++
			}
			out = append(out, Token{Word, sql[start:i], start, i})
		case c >= '0' && c <= '9':
			start := i
			for i < n && (sql[i] >= '0' && sql[i] <= '9' || sql[i] == '.' || sql[i] == 'e' || sql[i] == 'E') {
				i++
			}
			out = append(out, Token{Number, sql[start:i], start, i})
		default:
			start := i
			i++
			if i < n {
				switch sql[start : i+1] {
				case "<>", "<=", ">=", "!=", "||":
					i++
				}
			}
			out = append(out, Token{Symbol, sql[start:i], start, i})
		}
	}
	return out
}

func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isWordPart(c byte) bool { return isWordStart(c) || c >= '0' && c <= '9' || c == '$' }

// Item is one output column of a SELECT list.
type Item struct {
	// Name is the column's name: its alias, or the last part of a plain
	// column reference. Empty when the item has no name (an expression
	// without AS, which Flink names EXPR$n) or is a star.
	Name string
	// Star is true for * and t.*: the names are not known statically.
	Star bool
	// Pos and End span the item; NamePos and NameEnd its name, if any.
	Pos, End, NamePos, NameEnd int
}

// SelectList returns the output columns of the query's top-level SELECT
// (the first branch of a UNION) and the offset of its SELECT keyword. ok
// is false when the query does not start as a plain SELECT or WITH … SELECT
// that this reader understands.
func SelectList(toks []Token) (items []Item, selectPos int, ok bool) {
	depth, start := 0, -1
	for i, t := range toks {
		switch {
		case t.Kind == Symbol && t.Text == "(":
			depth++
		case t.Kind == Symbol && t.Text == ")":
			depth--
		case depth == 0 && t.Is("SELECT"):
			start = i
		}
		if start >= 0 {
			break
		}
		if depth == 0 && i == 0 && !t.Is("WITH") {
			return nil, 0, false
		}
	}
	if start < 0 {
		return nil, 0, false
	}
	selectPos = toks[start].Pos
	i := start + 1
	if i < len(toks) && (toks[i].Is("DISTINCT") || toks[i].Is("ALL")) {
		i++
	}
	var cur []Token
	flush := func() bool {
		if len(cur) == 0 {
			return false
		}
		items = append(items, item(cur))
		cur = nil
		return true
	}
	depth = 0
	for ; i < len(toks); i++ {
		t := toks[i]
		if depth == 0 && t.Kind == Word && listEnd[strings.ToUpper(t.Text)] {
			break
		}
		switch {
		case t.Kind == Symbol && t.Text == "(":
			depth++
		case t.Kind == Symbol && t.Text == ")":
			depth--
			if depth < 0 {
				return nil, 0, false
			}
		case depth == 0 && t.Kind == Symbol && t.Text == ",":
			if !flush() {
				return nil, 0, false
			}
			continue
		}
		cur = append(cur, t)
	}
	if !flush() || depth != 0 {
		return nil, 0, false
	}
	return items, selectPos, true
}

// listEnd are the words that end a SELECT list at its own depth.
var listEnd = map[string]bool{
	"FROM": true, "WHERE": true, "GROUP": true, "HAVING": true, "WINDOW": true, "ORDER": true,
	"LIMIT": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "MINUS": true, "FETCH": true, "OFFSET": true,
}

// notAlias are words that end an expression, so a bare word after them is
// never its alias, and words that cannot be an alias themselves.
var notAlias = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IS": true, "LIKE": true, "IN": true, "BETWEEN": true,
	"THEN": true, "ELSE": true, "WHEN": true, "CASE": true, "END": true, "DISTINCT": true, "ALL": true,
	"AS": true, "ON": true, "BY": true, "INTERVAL": true, "NULL": true, "TRUE": true, "FALSE": true,
	"UNKNOWN": true, "ESCAPE": true, "SIMILAR": true, "TO": true, "FROM": true, "AT": true, "ZONE": true,
	"YEAR": true, "MONTH": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true,
	"CURRENT_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "LOCALTIMESTAMP": true,
	"LOCALTIME": true, "CURRENT_ROW_TIMESTAMP": true,
}

func item(ts []Token) Item {
	it := Item{Pos: ts[0].Pos, End: ts[len(ts)-1].End}
	last := ts[len(ts)-1]
	named := func(t Token) Item {
		it.Name, it.NamePos, it.NameEnd = t.Text, t.Pos, t.End
		return it
	}
	if last.Kind == Symbol && last.Text == "*" && (len(ts) == 1 || ts[len(ts)-2].Text == ".") {
		it.Star = true
		return it
	}
	if !last.Ident() || last.Kind == Word && notAlias[strings.ToUpper(last.Text)] {
		return it
	}
	if len(ts) == 1 {
		return named(last)
	}
	prev := ts[len(ts)-2]
	if prev.Is("AS") {
		return named(last)
	}
	// A plain column reference, t.col or db.t.col.
	compound := len(ts)%2 == 1
	for k, t := range ts {
		if k%2 == 0 && !t.Ident() || k%2 == 1 && !(t.Kind == Symbol && t.Text == ".") {
			compound = false
		}
	}
	if compound {
		return named(last)
	}
	// An alias without AS: "COUNT(*) n", "a.b c".
	switch {
	case prev.Kind == Symbol && prev.Text == ")",
		prev.Kind == Quoted, prev.Kind == Number, prev.Kind == String,
		prev.Kind == Word && !notAlias[strings.ToUpper(prev.Text)]:
		return named(last)
	}
	return it
}

// TableRef is a table named after FROM, JOIN or TABLE (in a table-valued
// function), as one to three dotted parts.
type TableRef struct {
	Parts    []string
	Pos, End int
}

// Name is the last part, the table's own name.
func (r TableRef) Name() string { return r.Parts[len(r.Parts)-1] }

// fromInCall are the functions whose arguments are written with FROM.
var fromInCall = map[string]bool{"EXTRACT": true, "SUBSTRING": true, "TRIM": true, "OVERLAY": true}

// TableRefs lists the tables a query names, in order, leaving out the
// names of its own WITH clauses.
func TableRefs(toks []Token) []TableRef {
	ctes := map[string]bool{}
	// WITH a AS (…), b (x, y) AS (…): names followed by AS or a column list.
	if len(toks) > 0 && toks[0].Is("WITH") {
		depth := 0
		expectName := true
		for i := 1; i < len(toks); i++ {
			t := toks[i]
			switch {
			case t.Kind == Symbol && t.Text == "(":
				depth++
			case t.Kind == Symbol && t.Text == ")":
				depth--
			case depth == 0 && t.Kind == Symbol && t.Text == ",":
				expectName = true
				continue
			case depth == 0 && expectName && t.Ident() && !t.Is("RECURSIVE"):
				ctes[strings.ToLower(t.Text)] = true
				expectName = false
				continue
			case depth == 0 && t.Is("SELECT"):
				i = len(toks)
			}
			if depth == 0 && !(t.Kind == Symbol && t.Text == ")") {
				expectName = false
			}
		}
	}
	var out []TableRef
	// ref reads a dotted name at toks[i]; it returns the index after it.
	ref := func(i int) int {
		if i >= len(toks) || !toks[i].Ident() {
			return i
		}
		switch {
		case toks[i].Kind == Word && (toks[i].Is("LATERAL") || toks[i].Is("UNNEST") || toks[i].Is("SELECT")):
			return i
		case toks[i].Is("TABLE") && i+1 < len(toks) && toks[i+1].Text == "(":
			return i // TABLE(f(…)), a table function
		case i+1 < len(toks) && toks[i+1].Kind == Symbol && toks[i+1].Text == "(":
			return i // a function call
		}
		r := TableRef{Pos: toks[i].Pos}
		for {
			r.Parts = append(r.Parts, toks[i].Text)
			r.End = toks[i].End
			if i+2 < len(toks) && toks[i+1].Text == "." && toks[i+1].Kind == Symbol && toks[i+2].Ident() {
				i += 2
				continue
			}
			break
		}
		if !(len(r.Parts) == 1 && ctes[strings.ToLower(r.Parts[0])]) {
			out = append(out, r)
		}
		return i + 1
	}
	// The function each open parenthesis belongs to ("" for none): a FROM
	// inside EXTRACT(SECOND FROM x), SUBSTRING(s FROM 2) or TRIM(… FROM s)
	// names no table.
	var open []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind == Symbol && t.Text == "(" {
			fn := ""
			if i > 0 && toks[i-1].Kind == Word {
				fn = strings.ToUpper(toks[i-1].Text)
			}
			open = append(open, fn)
		} else if t.Kind == Symbol && t.Text == ")" && len(open) > 0 {
			open = open[:len(open)-1]
		}
		if t.Is("FROM") && len(open) > 0 && fromInCall[open[len(open)-1]] {
			continue
		}
		// a IS [NOT] DISTINCT FROM b compares values, and ClickHouse's
		// ARRAY JOIN unfolds a column: neither names a table.
		if i > 0 && (t.Is("FROM") && toks[i-1].Is("DISTINCT") || t.Is("JOIN") && toks[i-1].Is("ARRAY")) {
			continue
		}
		switch {
		case t.Is("FROM") || t.Is("JOIN"):
			j := ref(i + 1)
			// FROM a, b AS x, c: a comma list at the same depth.
			for t.Is("FROM") && j > i+1 {
				k := j
				if k < len(toks) && toks[k].Is("AS") {
					k++
				}
				if k < len(toks) && toks[k].Ident() && !clauseWord(toks[k]) {
					k++
				}
				if k < len(toks) && toks[k].Kind == Symbol && toks[k].Text == "," {
					next := ref(k + 1)
					if next == k+1 {
						break
					}
					j = next
					continue
				}
				break
			}
		case t.Is("TABLE") && i+1 < len(toks) && toks[i+1].Ident() && (i == 0 || toks[i-1].Text == "(" || toks[i-1].Text == ","):
			ref(i + 1) // TUMBLE(TABLE readings, …)
		}
	}
	return out
}

// clauseWord tells whether a word starts the next clause rather than
// being an alias.
func clauseWord(t Token) bool {
	if t.Kind != Word {
		return false
	}
	switch strings.ToUpper(t.Text) {
	case "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "JOIN", "LEFT", "RIGHT",
		"FULL", "INNER", "CROSS", "ON", "USING", "WINDOW", "FOR", "MATCH_RECOGNIZE":
		return true
	}
	return false
}
