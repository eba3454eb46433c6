package sqlexpr

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// maxStringLen caps the strings LPAD, RPAD and REPEAT build, so that one
// row cannot ask for gigabytes; PostgreSQL's cap is 1 GB.
const maxStringLen = 1 << 20

// ErrStringTooLong reports a string function asked to build a string over
// maxStringLen bytes.
var ErrStringTooLong = fmt.Errorf("requested string length over %d bytes", maxStringLen)

// stringsThen checks that the first n arguments are VARCHARs and the rest
// BIGINTs, and gives the type out.
func stringsThen(n int, out sqlrow.Type) func(a []sqlrow.Type) (sqlrow.Type, error) {
	return func(a []sqlrow.Type) (sqlrow.Type, error) {
		for i, t := range a {
			want := sqlrow.Varchar
			if i >= n {
				want = sqlrow.BigInt
			}
			if t != want && t != sqlrow.Null {
				return 0, fmt.Errorf("argument %d wants a %s, got %s", i+1, want, t)
			}
		}
		return out, nil
	}
}

// padType is LPAD's and RPAD's: (VARCHAR, BIGINT [, VARCHAR]).
func padType(a []sqlrow.Type) (sqlrow.Type, error) {
	ts := []sqlrow.Type{a[0], a[1]}
	if len(a) == 3 {
		ts = []sqlrow.Type{a[0], a[2], a[1]}
	}
	return stringsThen(len(ts)-1, sqlrow.Varchar)(ts)
}

// trimFn is BTRIM, LTRIM and RTRIM: the characters of the second argument
// (a space when there is none) removed from the string's ends.
func trimFn(f func(s, cutset string) string) func(a []sqlrow.Value) (sqlrow.Value, error) {
	return func(a []sqlrow.Value) (sqlrow.Value, error) {
		cut := " "
		if len(a) == 2 {
			cut = a[1].S
		}
		return sqlrow.Str(f(a[0].S, cut)), nil
	}
}

// replace is REPLACE(s, from, to); NB: an empty from leaves s as it is,
// as in PostgreSQL, where Go's ReplaceAll would insert to between runes.
func replace(a []sqlrow.Value) (sqlrow.Value, error) {
	if a[1].S == "" {
		return a[0], nil
	}
	return sqlrow.Str(strings.ReplaceAll(a[0].S, a[1].S, a[2].S)), nil
}

// strpos is STRPOS(s, sub) and POSITION(sub IN s): the character (from 1)
// where sub first starts in s, 0 when it does not.
func strpos(a []sqlrow.Value) (sqlrow.Value, error) {
	i := strings.Index(a[0].S, a[1].S)
	if i < 0 {
		return sqlrow.Int(0), nil
	}
	return sqlrow.Int(int64(utf8.RuneCountInString(a[0].S[:i])) + 1), nil
}

// padFn is LPAD and RPAD(s, n [, fill]): s cut to n characters, or filled
// to n with fill repeated (a space by default); an empty fill leaves s.
func padFn(left bool) func(a []sqlrow.Value) (sqlrow.Value, error) {
	return func(a []sqlrow.Value) (sqlrow.Value, error) {
		fill := " "
		if len(a) == 3 {
			fill = a[2].S
		}
		n := max(a[1].I, 0)
		if n > maxStringLen {
			return sqlrow.Value{}, ErrStringTooLong
		}
		r := []rune(a[0].S)
		if int64(len(r)) >= n {
			return sqlrow.Str(string(r[:n])), nil
		}
		f := []rune(fill)
		if len(f) == 0 {
			return a[0], nil
		}
		p := make([]rune, 0, n-int64(len(r)))
		for i := 0; int64(len(p)) < n-int64(len(r)); i++ {
			p = append(p, f[i%len(f)])
		}
		if left {
			return sqlrow.Str(string(p) + a[0].S), nil
		}
		return sqlrow.Str(a[0].S + string(p)), nil
	}
}

// initcap is INITCAP(s): each word's first letter upper case and the rest
// lower, a word being a run of letters and digits, as in PostgreSQL.
func initcap(a []sqlrow.Value) (sqlrow.Value, error) {
	var sb strings.Builder
	inWord := false
	for _, c := range a[0].S {
		if inWord {
			sb.WriteRune(unicode.ToLower(c))
		} else {
			sb.WriteRune(unicode.ToUpper(c))
		}
		inWord = unicode.IsLetter(c) || unicode.IsDigit(c)
	}
	return sqlrow.Str(sb.String()), nil
}

func reverse(a []sqlrow.Value) (sqlrow.Value, error) {
	r := []rune(a[0].S)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return sqlrow.Str(string(r)), nil
}

// leftRight is LEFT(s, n) and RIGHT(s, n): the first (last) n characters;
// a negative n gives all but the last (first) -n, as in PostgreSQL.
func leftRight(left bool) func(a []sqlrow.Value) (sqlrow.Value, error) {
	return func(a []sqlrow.Value) (sqlrow.Value, error) {
		r := []rune(a[0].S)
		l := int64(len(r))
		n := a[1].I
		if n < 0 {
			n = max(l+n, 0)
		}
		n = min(n, l)
		if left {
			return sqlrow.Str(string(r[:n])), nil
		}
		return sqlrow.Str(string(r[l-n:])), nil
	}
}

// splitPart is SPLIT_PART(s, delim, n): the n-th field (from 1) of s split
// at delim, counting from the end when n is negative; "" past the last.
// An empty delim makes s the only field, as in PostgreSQL.
func splitPart(a []sqlrow.Value) (sqlrow.Value, error) {
	n := a[2].I
	if n == 0 {
		return sqlrow.Value{}, fmt.Errorf("split_part: field position must not be zero")
	}
	fields := []string{a[0].S}
	if a[1].S != "" {
		fields = strings.Split(a[0].S, a[1].S)
	}
	if n < 0 {
		n += int64(len(fields)) + 1
	}
	if n < 1 || n > int64(len(fields)) {
		return sqlrow.Str(""), nil
	}
	return sqlrow.Str(fields[n-1]), nil
}

// repeat is REPEAT(s, n): s n times, "" when n is 0 or below.
func repeat(a []sqlrow.Value) (sqlrow.Value, error) {
	n := max(a[1].I, 0)
	if n > 0 && int64(len(a[0].S)) > maxStringLen/n {
		return sqlrow.Value{}, ErrStringTooLong
	}
	return sqlrow.Str(strings.Repeat(a[0].S, int(n))), nil
}
