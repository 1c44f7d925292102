// Package flinksql splits Flink SQL scripts into statements the way Flink's
// SQL client does: on semicolons outside quotes and comments, keeping an
// EXECUTE STATEMENT SET BEGIN … END block together. The runtime submits
// statements one by one through the SQL gateway, and tests check rendered
// jobs with it.
package flinksql

import (
	"fmt"
	"regexp"
	"strings"
)

// Statement is one statement of a script.
type Statement struct {
	// Text without the trailing semicolon, comments kept.
	Text string
	// Line is the 1-based line the statement starts on.
	Line int
}

var (
	beginSet = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*)*(EXECUTE\s+)?STATEMENT\s+SET\s+BEGIN\b`)
	endSet   = regexp.MustCompile(`(?is)\bEND\s*$`)
)

// Split returns the statements of a script. An unterminated quote or
// comment, or a statement set without END, is an error.
func Split(script string) ([]Statement, error) {
	var out []Statement
	var cur strings.Builder
	line, start := 1, 0
	inSet := false
	r := []rune(script)
	flush := func() {
		text := strings.TrimSpace(cur.String())
		if stripComments(text) != "" {
			out = append(out, Statement{Text: text, Line: start})
		}
		cur.Reset()
		start = 0
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		comment := c == '-' && i+1 < len(r) && r[i+1] == '-' || c == '/' && i+1 < len(r) && r[i+1] == '*'
		if start == 0 && !isSpace(c) && !comment && c != ';' {
			start = line
		}
		switch {
		case c == '\n':
			line++
			cur.WriteRune(c)
		case c == '-' && i+1 < len(r) && r[i+1] == '-':
			for i < len(r) && r[i] != '\n' {
				cur.WriteRune(r[i])
				i++
			}
			i-- // let the newline be counted above
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			end := strings.Index(string(r[i+2:]), "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: a /* comment is not closed", line)
			}
			body := string(r[i : i+2+len([]rune(string(r[i+2:])[:end]))+2])
			cur.WriteString(body)
			line += strings.Count(body, "\n")
			i += len([]rune(body)) - 1
		case c == '\'' || c == '"' || c == '`':
			opened := line
			cur.WriteRune(c)
			i++
			closed := false
			for ; i < len(r); i++ {
				cur.WriteRune(r[i])
				if r[i] == '\n' {
					line++
				}
				if r[i] == c {
					if i+1 < len(r) && r[i+1] == c { // doubled quote
						i++
						cur.WriteRune(r[i])
						continue
					}
					closed = true
					break
				}
			}
			if !closed {
				return nil, fmt.Errorf("line %d: a %c quote is not closed", opened, c)
			}
		case c == ';':
			text := stripComments(cur.String())
			if !inSet && beginSet.MatchString(text) {
				inSet = true
			}
			if inSet {
				if !endSet.MatchString(strings.TrimSpace(text)) {
					cur.WriteRune(c)
					continue
				}
				inSet = false
			}
			flush()
		default:
			cur.WriteRune(c)
		}
	}
	if inSet {
		return nil, fmt.Errorf("line %d: STATEMENT SET BEGIN has no END;", start)
	}
	flush()
	return out, nil
}

var commentRE = regexp.MustCompile(`(?m)--[^\n]*$|(?s)/\*.*?\*/`)

func stripComments(s string) string { return strings.TrimSpace(commentRE.ReplaceAllString(s, "")) }

// Keyword is the statement's first word, upper-cased, ignoring comments.
func (s Statement) Keyword() string {
	f := strings.Fields(stripComments(s.Text))
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(f[0])
}

func isSpace(c rune) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
