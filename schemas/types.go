package schemas

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// TypeKind is a logical column type, independent of any engine.
type TypeKind string

// The logical types a column may have.
const (
	TypeTinyInt   TypeKind = "tinyint"
	TypeSmallInt  TypeKind = "smallint"
	TypeInt       TypeKind = "int"
	TypeBigInt    TypeKind = "bigint"
	TypeFloat     TypeKind = "float"
	TypeDouble    TypeKind = "double"
	TypeDecimal   TypeKind = "decimal"
	TypeString    TypeKind = "string"
	TypeBoolean   TypeKind = "boolean"
	TypeDate      TypeKind = "date"
	TypeTimestamp TypeKind = "timestamp"
)

// LogicalType is a parsed column type such as decimal(12,2) or string(32).
// Length is 0 for an unbounded string; Precision/Scale apply to decimal and
// Precision alone to timestamp (fractional seconds).
type LogicalType struct {
	Kind      TypeKind
	Length    int
	Precision int
	Scale     int
}

var typePattern = regexp.MustCompile(`^([a-z]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$`)

// ParseType parses a logical type name. The error text is written for a
// diagnostic's detail.
func ParseType(s string) (LogicalType, error) {
	m := typePattern.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return LogicalType{}, fmt.Errorf("%q is not a type; write one of %s", s, typeList)
	}
	name, a, b := m[1], m[2], m[3]
	arg := func(v string) int { n, _ := strconv.Atoi(v); return n }
	t := LogicalType{Kind: TypeKind(name)}
	switch t.Kind {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble, TypeBoolean, TypeDate:
		if a != "" {
			return t, fmt.Errorf("type %s takes no arguments", name)
		}
	case TypeDecimal:
		if a == "" || b == "" {
			return t, fmt.Errorf("decimal needs a precision and a scale, as in decimal(12,2)")
		}
		t.Precision, t.Scale = arg(a), arg(b)
		if t.Precision < 1 || t.Precision > 38 {
			return t, fmt.Errorf("decimal precision must be between 1 and 38, not %d", t.Precision)
		}
		if t.Scale > t.Precision {
			return t, fmt.Errorf("decimal scale %d is larger than its precision %d", t.Scale, t.Precision)
		}
	case TypeString:
		if b != "" {
			return t, fmt.Errorf("string takes at most one argument, its length, as in string(32)")
		}
		if a != "" {
			t.Length = arg(a)
			if t.Length < 1 || t.Length > 65535 {
				return t, fmt.Errorf("string length must be between 1 and 65535, not %d", t.Length)
			}
		}
	case TypeTimestamp:
		if b != "" {
			return t, fmt.Errorf("timestamp takes at most one argument, its fractional-second precision")
		}
		t.Precision = 3
		if a != "" {
			t.Precision = arg(a)
		}
		if t.Precision > 6 {
			return t, fmt.Errorf("timestamp precision must be between 0 and 6, not %d", t.Precision)
		}
	default:
		return t, fmt.Errorf("%q is not a type; write one of %s", s, typeList)
	}
	return t, nil
}

const typeList = "tinyint, smallint, int, bigint, float, double, decimal(p,s), string, string(n), boolean, date, timestamp(p)"

// String is the canonical logical spelling, which ParseType accepts.
func (t LogicalType) String() string {
	switch t.Kind {
	case TypeDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case TypeString:
		if t.Length > 0 {
			return fmt.Sprintf("string(%d)", t.Length)
		}
	case TypeTimestamp:
		return fmt.Sprintf("timestamp(%d)", t.Precision)
	}
	return string(t.Kind)
}

// MarshalText lets lab.json carry the canonical spelling.
func (t LogicalType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads the canonical spelling back.
func (t *LogicalType) UnmarshalText(b []byte) error {
	p, err := ParseType(string(b))
	if err != nil {
		return err
	}
	*t = p
	return nil
}

// MySQL is the column type in MySQL 8. Timestamps become DATETIME so that
// values are not shifted by the session time zone and survive 2038.
func (t LogicalType) MySQL() string {
	switch t.Kind {
	case TypeDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case TypeString:
		if t.Length > 0 {
			return fmt.Sprintf("VARCHAR(%d)", t.Length)
		}
		return "TEXT"
	case TypeTimestamp:
		return fmt.Sprintf("DATETIME(%d)", t.Precision)
	case TypeBoolean:
		return "BOOLEAN"
	}
	return strings.ToUpper(string(t.Kind))
}

// Flink is the column type in Flink SQL.
func (t LogicalType) Flink() string {
	switch t.Kind {
	case TypeDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case TypeString:
		if t.Length > 0 {
			return fmt.Sprintf("VARCHAR(%d)", t.Length)
		}
		return "STRING"
	case TypeTimestamp:
		return fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	}
	return strings.ToUpper(string(t.Kind))
}

// ClickHouse is the column type in current ClickHouse (not Nullable-wrapped).
func (t LogicalType) ClickHouse() string {
	switch t.Kind {
	case TypeTinyInt:
		return "Int8"
	case TypeSmallInt:
		return "Int16"
	case TypeInt:
		return "Int32"
	case TypeBigInt:
		return "Int64"
	case TypeFloat:
		return "Float32"
	case TypeDouble:
		return "Float64"
	case TypeDecimal:
		return fmt.Sprintf("Decimal(%d, %d)", t.Precision, t.Scale)
	case TypeString:
		return "String"
	case TypeBoolean:
		return "Bool"
	case TypeDate:
		return "Date32"
	case TypeTimestamp:
		return fmt.Sprintf("DateTime64(%d)", t.Precision)
	}
	return "String"
}

// IsNumeric tells whether values of the type are numbers.
func (t LogicalType) IsNumeric() bool {
	switch t.Kind {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble, TypeDecimal:
		return true
	}
	return false
}

// IsInteger tells whether values of the type are whole numbers.
func (t LogicalType) IsInteger() bool {
	switch t.Kind {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt:
		return true
	}
	return false
}
