// Package textgen generates deterministic text for word-count tests and
// benchmarks, and counts words the way the wordcount example defines them,
// independently of the example's code.
package textgen

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// vocabulary mixes case, digits and a long tail so that a count exercises
// lower-casing, many keys and skew.
var vocabulary = func() []string {
	base := strings.Fields(`the of and to in a is that for it as was with be by on not he I this
		are or his from at which but have an they you were her she there been one all we their
		Floe stream Wasm state key group barrier checkpoint savepoint rescale window timer
		watermark operator task scheduler source sink pebble wazero batch record`)
	for i := 0; i < 5000; i++ {
		base = append(base, "w"+strconv.Itoa(i))
	}
	return base
}()

// separators are what stands between words: anything but ASCII letters and
// digits.
var separators = []string{" ", " ", " ", ", ", ". ", " - ", "; ", "'", " (", ") ", "\t", " é "}

// Write writes n words in lines of 1 to 16 words.
func Write(w io.Writer, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var line []byte
	for written := 0; written < n; {
		perLine := 1 + r.IntN(16)
		line = line[:0]
		for i := 0; i < perLine && written < n; i++ {
			if i > 0 {
				line = append(line, separators[r.IntN(len(separators))]...)
			}
			line = append(line, pick(r)...)
			written++
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// pick draws a word with a skewed distribution: common words often, the
// tail rarely.
func pick(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return vocabulary[r.IntN(64)]
	}
	return vocabulary[r.IntN(len(vocabulary))]
}

// Count counts the words of text: maximal runs of ASCII letters and digits,
// lower-cased.
func Count(text []byte) map[string]int64 {
	counts := map[string]int64{}
	var word []byte
	flush := func() {
		if len(word) > 0 {
			counts[string(word)]++
			word = word[:0]
		}
	}
	for _, c := range text {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			word = append(word, c)
		case c >= 'A' && c <= 'Z':
			word = append(word, c-'A'+'a')
		default:
			flush()
		}
	}
	flush()
	return counts
}

// ReadCounts reads the "word,count" lines of the part files (part-*) in
// dir, the word count's output, and returns every count seen per word and
// the number of lines. Hidden (uncommitted) files are not read.
func ReadCounts(dir string) (map[string][]int64, int64, error) {
	files, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil {
		return nil, 0, err
	}
	if len(files) == 0 {
		return nil, 0, fmt.Errorf("no part files in %s", dir)
	}
	got := map[string][]int64{}
	var lines int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line == "" {
				continue
			}
			w, c, ok := strings.Cut(line, ",")
			n, err := strconv.ParseInt(c, 10, 64)
			if !ok || err != nil {
				return nil, 0, fmt.Errorf("%s: bad line %q", f, line)
			}
			got[w] = append(got[w], n)
			lines++
		}
	}
	return got, lines, nil
}

// MaxCounts is ReadCounts keeping each word's largest count: for the word
// count, its number of occurrences.
func MaxCounts(dir string) (map[string]int64, error) {
	all, _, err := ReadCounts(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(all))
	for w, cs := range all {
		for _, c := range cs {
			out[w] = max(out[w], c)
		}
	}
	return out, nil
}
