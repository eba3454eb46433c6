package record

import (
	"strings"
	"testing"
)

func TestQuoteCutsLongValuesAtACharacterAndSaysSo(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		name, value, want string
	}{
		{"empty", "", `""`},
		{"short", `say "hi"`, `"say \"hi\""`},
		{"exactly the limit", a(64), `"` + a(64) + `"`},
		{"one byte over", a(65), `"` + a(64) + `"… (65 bytes)`},
		{"long", a(1234), `"` + a(64) + `"… (1234 bytes)`},
		// é is 2 bytes at offsets 63 and 64, € 3 bytes at 62 to 64 and 𝄞 4
		// bytes at 61 to 64: each is left out whole.
		{"2-byte character across the limit", a(63) + "é" + a(10), `"` + a(63) + `"… (75 bytes)`},
		{"3-byte character across the limit", a(62) + "€" + a(10), `"` + a(62) + `"… (75 bytes)`},
		{"4-byte character across the limit", a(61) + "𝄞" + a(10), `"` + a(61) + `"… (75 bytes)`},
		{"character ending at the limit", a(62) + "é" + a(10), `"` + a(62) + `é"… (74 bytes)`},
		// Bytes that are not UTF-8 have no character to keep whole.
		{"not UTF-8", strings.Repeat("\x80", 70), `"` + strings.Repeat(`\x80`, 64) + `"… (70 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quote([]byte(tc.value)); got != tc.want {
				t.Errorf("Quote = %s\nwant    %s", got, tc.want)
			}
		})
	}
}

func TestQuoteExcerptOfAnExcerptKeptAlone(t *testing.T) {
	v := []byte(strings.Repeat("b", 100))
	if got, want := QuoteExcerpt(Excerpt(v), len(v)), `"`+strings.Repeat("b", 64)+`"… (100 bytes)`; got != want {
		t.Errorf("QuoteExcerpt = %s, want %s", got, want)
	}
	// A size that does not exceed the excerpt, such as an unset one, adds
	// nothing.
	if got, want := QuoteExcerpt([]byte("abc"), 0), `"abc"`; got != want {
		t.Errorf("QuoteExcerpt without a size = %s, want %s", got, want)
	}
}
