package floe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// SQL functions (sdk/ABI.md, "SQL functions"): a scalar function that a
// SQL script declares with CREATE FUNCTION is a map function whose input
// record holds the call's arguments as a row of SQL values and whose
// output is the result, one value. SQLFunction registers one from a
// function over decoded values.

// SQLType is the type of a SQL value; its number is the value's tag in the
// encoding.
type SQLType uint8

// The SQL types.
const (
	SQLNull    SQLType = 0
	SQLBoolean SQLType = 1
	SQLBigInt  SQLType = 2
	SQLDouble  SQLType = 3
	SQLVarchar SQLType = 4
)

// SQLValue is one SQL value: Type says which of the other fields holds it
// (none for NULL).
type SQLValue struct {
	Type  SQLType
	Bool  bool
	Int   int64
	Float float64
	Str   string
}

// SQL values of each type.
func SQLInt(i int64) SQLValue     { return SQLValue{Type: SQLBigInt, Int: i} }
func SQLFloat(f float64) SQLValue { return SQLValue{Type: SQLDouble, Float: f} }
func SQLString(s string) SQLValue { return SQLValue{Type: SQLVarchar, Str: s} }
func SQLBool(b bool) SQLValue     { return SQLValue{Type: SQLBoolean, Bool: b} }

// IsNull reports whether v is NULL.
func (v SQLValue) IsNull() bool { return v.Type == SQLNull }

// ErrSQLValue reports bytes that are not an encoded SQL value.
var ErrSQLValue = errors.New("not an encoded SQL value")

// DecodeSQLRow decodes a row of SQL values: the whole of b, value after
// value, into dst[:0].
func DecodeSQLRow(dst []SQLValue, b []byte) ([]SQLValue, error) {
	dst = dst[:0]
	for len(b) > 0 {
		v, n, err := decodeSQLValue(b)
		if err != nil {
			return dst, fmt.Errorf("value %d: %w", len(dst)+1, err)
		}
		dst, b = append(dst, v), b[n:]
	}
	return dst, nil
}

func decodeSQLValue(b []byte) (SQLValue, int, error) {
	switch SQLType(b[0]) {
	case SQLNull:
		return SQLValue{}, 1, nil
	case SQLBoolean:
		if len(b) < 2 {
			return SQLValue{}, 0, ErrSQLValue
		}
		return SQLBool(b[1]&1 == 1), 2, nil
	case SQLBigInt, SQLDouble:
		if len(b) < 9 {
			return SQLValue{}, 0, ErrSQLValue
		}
		u := binary.LittleEndian.Uint64(b[1:9])
		if SQLType(b[0]) == SQLBigInt {
			return SQLInt(int64(u)), 9, nil
		}
		return SQLFloat(math.Float64frombits(u)), 9, nil
	case SQLVarchar:
		l, n := binary.Uvarint(b[1:])
		if n <= 0 || l > uint64(len(b)-1-n) {
			return SQLValue{}, 0, ErrSQLValue
		}
		return SQLString(string(b[1+n : 1+n+int(l)])), 1 + n + int(l), nil
	}
	return SQLValue{}, 0, fmt.Errorf("%w: tag %d", ErrSQLValue, b[0])
}

// AppendSQLValue appends the encoding of v to dst.
func AppendSQLValue(dst []byte, v SQLValue) []byte {
	dst = append(dst, byte(v.Type))
	switch v.Type {
	case SQLBoolean:
		if v.Bool {
			return append(dst, 1)
		}
		return append(dst, 0)
	case SQLBigInt:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.Int))
	case SQLDouble:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.Float))
	case SQLVarchar:
		return append(binary.AppendUvarint(dst, uint64(len(v.Str))), v.Str...)
	}
	return dst
}

// SQLFunction registers fn as the scalar SQL function name: each record's
// arguments are decoded and fn's result encoded. fn gets NULL arguments as
// NULL values, and may return NULL (SQLValue{}); an error fails the job.
func SQLFunction(name string, fn func(args []SQLValue) (SQLValue, error)) {
	var args []SQLValue
	var out []byte
	Map(name, func(rec []byte) ([]byte, error) {
		var err error
		if args, err = DecodeSQLRow(args, rec); err != nil {
			return nil, err
		}
		v, err := fn(args)
		if err != nil {
			return nil, err
		}
		out = AppendSQLValue(out[:0], v)
		return out, nil
	})
}
