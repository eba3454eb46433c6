package sqlrow

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is the SQL type of a value or a column.
type Type uint8

// The types. Null is the type of the NULL literal alone; a column never has
// it.
const (
	Null    Type = 0
	Boolean Type = 1
	BigInt  Type = 2
	Double  Type = 3
	Varchar Type = 4
	// Timestamp is a point in time without a time zone, held as
	// milliseconds since the Unix epoch in I and written as
	// 2026-12-02 10:00:00.123 (timestamp.go).
	Timestamp Type = 5
)

// String returns the type's SQL name.
func (t Type) String() string {
	switch t {
	case Boolean:
		return "BOOLEAN"
	case BigInt:
		return "BIGINT"
	case Double:
		return "DOUBLE"
	case Varchar:
		return "VARCHAR"
	case Timestamp:
		return "TIMESTAMP"
	}
	return "NULL"
}

// ParseType returns the type a schema names: BOOLEAN, BIGINT, DOUBLE,
// VARCHAR or TIMESTAMP, case-insensitively.
func ParseType(s string) (Type, error) {
	for _, t := range []Type{Boolean, BigInt, Double, Varchar, Timestamp} {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	return Null, fmt.Errorf("unknown type %q (want BOOLEAN, BIGINT, DOUBLE, VARCHAR or TIMESTAMP)", s)
}

// Value is one SQL value. T says which field holds it: I for BIGINT,
// TIMESTAMP (milliseconds since the epoch) and BOOLEAN (0 or 1), F for DOUBLE, S for VARCHAR; a NULL has T == Null.
type Value struct {
	T Type    `json:"t"`
	I int64   `json:"i,omitempty"`
	F float64 `json:"f,omitempty"`
	S string  `json:"s,omitempty"`
}

// Row is a list of values in schema order.
type Row []Value

// Int returns a BIGINT value.
func Int(i int64) Value { return Value{T: BigInt, I: i} }

// Float returns a DOUBLE value.
func Float(f float64) Value { return Value{T: Double, F: f} }

// Str returns a VARCHAR value.
func Str(s string) Value { return Value{T: Varchar, S: s} }

// Bool returns a BOOLEAN value.
func Bool(b bool) Value {
	if b {
		return Value{T: Boolean, I: 1}
	}
	return Value{T: Boolean}
}

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.T == Null }

// True reports whether v is the BOOLEAN TRUE (NULL and FALSE are not).
func (v Value) True() bool { return v.T == Boolean && v.I != 0 }

// AsFloat returns a BIGINT or DOUBLE value as a float64.
func (v Value) AsFloat() float64 {
	if v.T == BigInt {
		return float64(v.I)
	}
	return v.F
}

// Text returns the value as CSV writes it: NULL as the empty string,
// BOOLEAN as true or false, DOUBLE in the shortest form that reads back
// exactly, with a decimal point or an exponent ("2.0", not "2").
func (v Value) Text() string {
	switch v.T {
	case Boolean:
		return strconv.FormatBool(v.I != 0)
	case BigInt:
		return strconv.FormatInt(v.I, 10)
	case Double:
		return formatFloat(v.F)
	case Varchar:
		return v.S
	case Timestamp:
		return FormatTimestamp(v.I)
	}
	return ""
}

func formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// String returns the value for messages and tests: Text, with NULL
// spelled out and strings quoted.
func (v Value) String() string {
	switch v.T {
	case Null:
		return "NULL"
	case Varchar:
		return strconv.Quote(v.S)
	}
	return v.Text()
}

// MarshalText writes the type's SQL name, so that a program in a job spec
// reads "BIGINT" rather than a number.
func (t Type) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a type's SQL name; NULL is the literal NULL's type.
func (t *Type) UnmarshalText(b []byte) error {
	if string(b) == "NULL" {
		*t = Null
		return nil
	}
	v, err := ParseType(string(b))
	*t = v
	return err
}
