package sqlrow

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseCSV parses one CSV line into a row of the given column types,
// appending to dst. Fields may be quoted as RFC 4180 says; an empty field is
// NULL. A line with another number of fields, or a field that does not
// read as its column's type, is an error naming the column (1-based).
func ParseCSV(dst Row, line []byte, types []Type) (Row, error) {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.IndexByte(line, '"') < 0 {
		return parsePlainCSV(dst, string(line), types)
	}
	fields, err := splitCSV(line)
	if err != nil {
		return nil, err
	}
	if len(fields) != len(types) {
		return nil, fmt.Errorf("want %d fields, got %d in %q", len(types), len(fields), line)
	}
	for i, f := range fields {
		v, err := ParseText(f, types[i])
		if err != nil {
			return nil, fmt.Errorf("field %d: %w", i+1, err)
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// parsePlainCSV is ParseCSV of a line without quotes, field by field:
// NB: no slice of fields, an allocation per row saved (measured by the
// nexmark-q1-sql bench row).
func parsePlainCSV(dst Row, line string, types []Type) (Row, error) {
	if n := strings.Count(line, ",") + 1; n != len(types) {
		return nil, fmt.Errorf("want %d fields, got %d in %q", len(types), n, line)
	}
	rest := line
	for i, t := range types {
		f := rest
		if j := strings.IndexByte(rest, ','); j >= 0 {
			f, rest = rest[:j], rest[j+1:]
		}
		v, err := ParseText(f, t)
		if err != nil {
			return nil, fmt.Errorf("field %d: %w", i+1, err)
		}
		dst = append(dst, v)
	}
	return dst, nil
}

func splitCSV(line []byte) ([]string, error) {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.IndexByte(line, '"') < 0 {
		return strings.Split(string(line), ","), nil
	}
	r := csv.NewReader(bytes.NewReader(line))
	r.FieldsPerRecord = -1
	fs, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("reading CSV %q: %w", line, err)
	}
	return fs, nil
}

// ParseText reads s as a value of type t; the empty string is NULL.
func ParseText(s string, t Type) (Value, error) {
	if s == "" {
		return Value{}, nil
	}
	switch t {
	case Varchar:
		return Str(s), nil
	case BigInt:
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("%q is not a BIGINT", s)
		}
		return Int(i), nil
	case Double:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return Value{}, fmt.Errorf("%q is not a DOUBLE", s)
		}
		return Float(f), nil
	case Boolean:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return Value{}, fmt.Errorf("%q is not a BOOLEAN", s)
		}
		return Bool(b), nil
	case Timestamp:
		return ParseTimestamp(s)
	}
	return Value{}, fmt.Errorf("no column has type %s", t)
}

// AppendCSV appends r as one CSV line, without the line break. A VARCHAR
// that holds a comma, a quote or a line break, or is empty (which would
// read back as NULL), is quoted.
func AppendCSV(b []byte, r Row) []byte {
	for i, v := range r {
		if i > 0 {
			b = append(b, ',')
		}
		if v.T == BigInt { // NB: Text's string would be an allocation per value.
			b = strconv.AppendInt(b, v.I, 10)
			continue
		}
		s := v.Text()
		if v.T == Varchar && (s == "" || strings.ContainsAny(s, ",\"\r\n")) {
			b = append(b, '"')
			b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
			b = append(b, '"')
			continue
		}
		b = append(b, s...)
	}
	return b
}

// ParseJSON parses a JSON object into a row of the named columns, appending
// to dst. A missing member or a JSON null is NULL; a member of the wrong
// JSON type is an error naming it.
func ParseJSON(dst Row, line []byte, names []string, types []Type) (Row, error) {
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		return nil, fmt.Errorf("reading JSON %q: %w", line, err)
	}
	for i, name := range names {
		v, err := fromJSON(obj[name], types[i])
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", name, err)
		}
		dst = append(dst, v)
	}
	return dst, nil
}

func fromJSON(x any, t Type) (Value, error) {
	switch x := x.(type) {
	case nil:
		return Value{}, nil
	case json.Number:
		if t == Varchar || t == Boolean || t == Timestamp {
			return Value{}, fmt.Errorf("%s is not a %s", x, t)
		}
		return ParseText(x.String(), t)
	case string:
		if t != Varchar {
			return ParseText(x, t)
		}
		return Str(x), nil
	case bool:
		if t != Boolean {
			return Value{}, fmt.Errorf("%v is not a %s", x, t)
		}
		return Bool(x), nil
	}
	return Value{}, fmt.Errorf("%v is not a %s", x, t)
}

// AppendJSON appends r as one JSON object whose members are named by
// names, in order.
func AppendJSON(b []byte, names []string, r Row) []byte {
	b = append(b, '{')
	for i, v := range r {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, names[i])
		b = append(b, ':')
		switch v.T {
		case Null:
			b = append(b, "null"...)
		case Varchar:
			j, _ := json.Marshal(v.S)
			b = append(b, j...)
		case Timestamp:
			b = append(b, '"')
			b = append(b, v.Text()...)
			b = append(b, '"')
		case Double:
			if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
				b = append(b, "null"...)
			} else {
				b = append(b, formatFloat(v.F)...)
			}
		default:
			b = append(b, v.Text()...)
		}
	}
	return append(b, '}')
}
