package generator

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/labgen/labgen/schemas"
)

// kind is the Go-side kind of a generated value.
type kind uint8

const (
	kNull kind = iota
	kInt
	kFloat
	kString
	kTime
	kBool
)

// Value is one generated column value. It is a small tagged union rather
// than an interface so that generating a row allocates nothing.
type Value struct {
	k kind
	i int64 // kInt; kTime as Unix nanoseconds; kBool as 0/1
	f float64
	s string
}

func nullV() Value           { return Value{} }
func intV(i int64) Value     { return Value{k: kInt, i: i} }
func floatV(f float64) Value { return Value{k: kFloat, f: f} }
func stringV(s string) Value { return Value{k: kString, s: s} }
func timeV(ns int64) Value   { return Value{k: kTime, i: ns} }
func boolV(b bool) Value     { return Value{k: kBool, i: b2i(b)} }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Go returns the value as a plain Go value (nil, int64, float64, string,
// time.Time or bool), for tests and callers outside the package.
func (v Value) Go() any {
	switch v.k {
	case kInt:
		return v.i
	case kFloat:
		return v.f
	case kString:
		return v.s
	case kTime:
		return time.Unix(0, v.i).UTC()
	case kBool:
		return v.i != 0
	}
	return nil
}

// column is a column the producer writes, with how its values are spelt.
type column struct {
	name string
	typ  schemas.LogicalType
	// round is the number of decimals of a rounded field, -1 if none.
	round int
}

// decimals is how many digits after the point a float is written with, or
// -1 for the shortest exact form.
func (c *column) decimals() int {
	switch {
	case c.round >= 0:
		return c.round
	case c.typ.Kind == schemas.TypeDecimal:
		return c.typ.Scale
	case c.typ.IsInteger():
		return 0
	}
	return -1
}

// appendSQL appends v as a MySQL literal for column c. Strings that are not
// plain printable ASCII without quotes or backslashes are written as
// hexadecimal literals with a utf8mb4 introducer, which is correct whatever
// the server's sql_mode (NO_BACKSLASH_ESCAPES or not).
func appendSQL(b []byte, c *column, v Value) []byte {
	switch v.k {
	case kNull:
		return append(b, "NULL"...)
	case kInt, kFloat, kTime:
		return appendScalar(b, c, v, '\'')
	case kBool:
		if v.i != 0 {
			return append(b, "TRUE"...)
		}
		return append(b, "FALSE"...)
	}
	// kString
	if c.typ.IsNumeric() && isNumber(v.s) {
		return append(b, v.s...)
	}
	return appendSQLString(b, v.s)
}

func appendSQLString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\'' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '\'')
		b = append(b, s...)
		return append(b, '\'')
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // replaces invalid bytes with U+FFFD
	}
	const hex = "0123456789ABCDEF"
	b = append(b, "_utf8mb4 X'"...)
	for i := 0; i < len(s); i++ {
		b = append(b, hex[s[i]>>4], hex[s[i]&15])
	}
	return append(b, '\'')
}

// appendJSON appends v as a JSON value for column c: numbers as numbers
// (decimals with their scale), times as "YYYY-MM-DD HH:MM:SS.fff" strings.
func appendJSON(b []byte, c *column, v Value) []byte {
	switch v.k {
	case kNull:
		return append(b, "null"...)
	case kInt, kFloat, kTime:
		return appendScalar(b, c, v, '"')
	case kBool:
		return strconv.AppendBool(b, v.i != 0)
	}
	if c.typ.IsNumeric() && isNumber(v.s) {
		return append(b, v.s...)
	}
	return appendJSONString(b, v.s)
}

// appendScalar appends a number or a time, the same in SQL and JSON but for
// the quote: times are always quoted, numbers only for string columns.
func appendScalar(b []byte, c *column, v Value, quote byte) []byte {
	quoted := v.k == kTime || c.typ.Kind == schemas.TypeString
	if quoted {
		b = append(b, quote)
	}
	switch v.k {
	case kInt:
		b = strconv.AppendInt(b, v.i, 10)
	case kFloat:
		b = appendFloat(b, v.f, c.decimals())
	case kTime:
		b = appendTime(b, v.i, c.typ)
	}
	if quoted {
		b = append(b, quote)
	}
	return b
}

func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&15])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

func appendFloat(b []byte, f float64, decimals int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "NULL"...)
	}
	if decimals >= 0 {
		return strconv.AppendFloat(b, f, 'f', decimals, 64)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendTime writes Unix nanoseconds in UTC as a DATETIME literal with the
// column's fractional precision (truncated), or a DATE.
func appendTime(b []byte, ns int64, t schemas.LogicalType) []byte {
	tm := time.Unix(0, ns).UTC()
	y, mo, d := tm.Date()
	b = appendInt(b, y, 4)
	b = append(b, '-')
	b = appendInt(b, int(mo), 2)
	b = append(b, '-')
	b = appendInt(b, d, 2)
	if t.Kind == schemas.TypeDate {
		return b
	}
	h, mi, s := tm.Clock()
	b = append(b, ' ')
	b = appendInt(b, h, 2)
	b = append(b, ':')
	b = appendInt(b, mi, 2)
	b = append(b, ':')
	b = appendInt(b, s, 2)
	if p := t.Precision; p > 0 {
		frac := tm.Nanosecond()
		for i := p; i < 9; i++ {
			frac /= 10
		}
		b = append(b, '.')
		b = appendInt(b, frac, p)
	}
	return b
}

// appendInt writes a non-negative n zero-padded to width digits.
func appendInt(b []byte, n, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for n > 0 || width > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		width--
	}
	return append(b, buf[i:]...)
}

// isNumber tells whether s is a number in JSON's grammar without an
// exponent (-?(0|[1-9][0-9]*)(.[0-9]+)?), safe to write unquoted into SQL
// and JSON.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}
