package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"
)

// byteSize is a flag's size in bytes, given as plain bytes or with a unit:
// KiB, MiB, GiB (powers of 1024) or KB, MB, GB (powers of 1000), as in
// --max-memory 256MiB. It prints in the largest binary unit that holds it
// exactly, so a default shows as 256MiB rather than 268435456.
type byteSize int64

// Set parses s with go-humanize, which takes both kinds of unit.
func (b *byteSize) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return fmt.Errorf("want a size such as 256MiB, 64KB or 1048576: %w", err)
	}
	if n > math.MaxInt64 {
		return fmt.Errorf("%s is too large", s)
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Type names the value in help: --max-memory size.
func (b *byteSize) Type() string { return "size" }

// sizeVar registers a byte-size flag that stores into p, with default def.
func sizeVar(fs *pflag.FlagSet, p *int64, name string, def int64, usage string) {
	*p = def
	fs.Var((*byteSize)(p), name, usage)
}
