package flinkapi

import (
	"regexp"
	"sort"
	"strings"

	"github.com/labgen/labgen/flinksql"
)

// stripComments removes -- and /* */ comments outside quotes.
func stripComments(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'' || r == '"' || r == '`':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				j++
			}
			if j >= len(rs) {
				j = len(rs) - 1
			}
			b.WriteString(string(rs[i : j+1]))
			i = j
		case r == '-' && i+1 < len(rs) && rs[i+1] == '-':
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			b.WriteRune('\n')
		case r == '/' && i+1 < len(rs) && rs[i+1] == '*':
			j := i + 2
			for j+1 < len(rs) && !(rs[j] == '*' && rs[j+1] == '/') {
				j++
			}
			i = j + 1
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var envRefRe = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Substitute replaces ${NAME} with env[NAME], as the rendered Flink SQL
// expects for passwords kept in .env. Names without a value are left as
// they are and returned, sorted, in missing.
func Substitute(sql string, env map[string]string) (out string, missing []string) {
	seen := map[string]bool{}
	out = envRefRe.ReplaceAllStringFunc(sql, func(m string) string {
		name := m[2 : len(m)-1]
		if v, ok := env[name]; ok {
			return v
		}
		if !seen[name] {
			seen[name] = true
			missing = append(missing, name)
		}
		return m
	})
	sort.Strings(missing)
	return out, missing
}

// PipelineName is the value of SET 'pipeline.name' = '…' in a script, the
// name its job will have; "" when the script does not set it.
func PipelineName(statements []string) string {
	name := ""
	for _, s := range statements {
		if m := pipelineNameRe.FindStringSubmatch(stripComments(s)); m != nil {
			name = strings.ReplaceAll(m[1], "''", "'")
		}
	}
	return name
}

var pipelineNameRe = regexp.MustCompile(`(?is)^\s*SET\s+'pipeline\.name'\s*=\s*'((?:[^']|'')*)'\s*$`)

// Statements splits a script with flinksql.Split (as Flink's SQL client
// does) and returns the statements' texts; a script that does not split
// (an unterminated quote) is returned whole, for Flink to reject in its
// own words.
func Statements(script string) []string {
	sts, err := flinksql.Split(script)
	if err != nil {
		return []string{script}
	}
	out := make([]string, len(sts))
	for i, s := range sts {
		out[i] = s.Text
	}
	return out
}

var createTableRe = regexp.MustCompile("(?is)^\\s*CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(" + identRe + ")\\s*\\.\\s*(" + identRe + ")\\s*\\.\\s*(" + identRe + ")")

const identRe = "`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_$]*"

func unquoteIdent(s string) string {
	if strings.HasPrefix(s, "`") {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

// CreatedTable tells whether a statement is a CREATE TABLE of a table named
// catalog.database.table, and which.
func CreatedTable(statement string) (catalog, database, table string, ok bool) {
	m := createTableRe.FindStringSubmatch(stripComments(statement))
	if m == nil {
		return "", "", "", false
	}
	return unquoteIdent(m[1]), unquoteIdent(m[2]), unquoteIdent(m[3]), true
}
