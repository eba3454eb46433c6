package nexmark

import (
	"fmt"
	"math"
	"testing"
)

// TestJavaRandomMatchesTheJVM compares draws with those java.util.Random
// gave for the same seeds and calls on OpenJDK, and Java's
// Math.abs(Integer.reverse(seed)).
func TestJavaRandomMatchesTheJVM(t *testing.T) {
	want := map[int64]string{
		0:           "1 5 8029 47 668380 663681053 0.5504370051176339 -7423979211207825555 9984 0",
		1:           "1 0 1847 13 217804 77814904 0.3327170559595112 -594798593157429144 109 -2147483648",
		42:          "1 7 1248 84 323715 2023087525 0.27707849007413665 -6169532649852302182 26316831 1409286144",
		1234567:     "0 3 7151 98 456180 629780644 0.6741036168483094 -862348209486733455 1924 513062912",
		-5:          "0 8 7953 28 399397 1486179385 0.2873181586242609 6370092549091603725 486 536870913",
		99999999999: "0 1 7916 10 147699 2127141485 0.2383789215794514 2149654066143918808 10186 1610222",
	}
	for seed, w := range want {
		r := newJavaRandom(seed)
		got := fmt.Sprint(r.nextInt(2), r.nextInt(13), r.nextInt(10000), r.nextInt(100), r.nextInt(1<<20), r.nextInt(2147483646))
		got += fmt.Sprint(" ", javaDouble(r.nextDouble()), " ", r.nextLong(), " ", nextPrice(&r), " ", reverse32(int32(seed)))
		if got != w {
			t.Errorf("seed %d: got  %s\nwant %s", seed, got, w)
		}
	}
}

// javaDouble formats f as the shortest decimal that reads back as f, which
// is what Java prints for these values.
func javaDouble(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.1f", f)
	}
	return fmt.Sprint(f)
}
