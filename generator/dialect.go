package generator

import (
	"strings"
	"unicode/utf8"
)

// Dialect is how a sink's server spells the producer's statements: its
// quoted names, its idempotent INSERT, its multi-row UPDATE and its string
// literals. Everything else (the rows, their order, the batches) is the
// same on every server, so runs write the same data anywhere.
type Dialect struct {
	Name string
	// Server names the server in messages to the person running the
	// producer.
	Server string
	pg     bool
}

var (
	// MySQLDialect writes MySQL and MariaDB: `names`, INSERT … ON
	// DUPLICATE KEY UPDATE, UPDATE … JOIN.
	MySQLDialect = &Dialect{Name: "mysql", Server: "MySQL"}
	// PostgresDialect writes PostgreSQL: "names", INSERT … ON CONFLICT
	// DO NOTHING, UPDATE … FROM; strings as standard_conforming_strings
	// reads them (the sink's session sets it).
	PostgresDialect = &Dialect{Name: "postgres", Server: "PostgreSQL", pg: true}
)

// dialectOf is the sink's dialect; sinks that do not say (tests' fakes)
// are written MySQL's way.
func dialectOf(s Sink) *Dialect {
	if d, ok := s.(interface{ Dialect() *Dialect }); ok && d.Dialect() != nil {
		return d.Dialect()
	}
	return MySQLDialect
}

func (d *Dialect) quoteID(id string) string {
	if d.pg {
		return `"` + strings.ReplaceAll(id, `"`, `""`) + `"`
	}
	return quoteID(id)
}

// appendValue appends v as a literal for column c.
func (d *Dialect) appendValue(b []byte, c *column, v Value) []byte {
	if d.pg && v.k == kString && !(c.typ.IsNumeric() && isNumber(v.s)) {
		return appendPostgresString(b, v.s)
	}
	return appendSQL(b, c, v)
}

// appendPostgresString quotes s as a standard string: only ' is special.
// PostgreSQL's text holds no NUL and no invalid UTF-8; both become U+FFFD
// (MySQL's literal replaces invalid UTF-8 the same way).
func appendPostgresString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b = append(b, '\'')
		}
		b = append(b, s[i])
	}
	return append(b, '\'')
}

// alias appends the name of column i of the update's derived table
// (k0, v1): plain names, which neither server needs quoted.
func appendAlias(b []byte, kind byte, i int) []byte {
	b = append(b, " AS "...)
	b = append(b, kind)
	return appendInt(b, i, 1)
}
