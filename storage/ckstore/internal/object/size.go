package object

import (
	"fmt"
	"io"
)

// ExactReader returns r itself when size is negative (unknown). Otherwise it
// returns a reader that yields r's bytes and fails with an error wrapping
// ErrSizeMismatch if r ends before size bytes or holds more than size.
//
// NB: it looks for a surplus byte before it hands out the size-th byte, and
// withholds the last bytes if it finds one (or any error), because
// uploaders that know the size (such as minio-go) never ask for more, and
// io.ReadFull drops an error that comes with the bytes it wanted.
func ExactReader(r io.Reader, size int64) io.Reader {
	if size < 0 {
		return r
	}
	return &exactReader{r: r, size: size, left: size}
}

type exactReader struct {
	r    io.Reader
	size int64
	left int64
	err  error // sticky once the reader has ended or failed
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.left == 0 {
		e.err = e.probe()
		return 0, e.err
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	switch {
	case err == io.EOF && e.left > 0:
		e.err = fmt.Errorf("%w: reader ended after %d of %d bytes", ErrSizeMismatch, e.size-e.left, e.size)
	case err != nil && err != io.EOF:
		e.err = err
	case e.left == 0:
		if e.err = e.probe(); e.err != io.EOF {
			return 0, e.err
		}
	}
	if e.err == io.EOF && n > 0 {
		return n, nil // report EOF on the next call, as most readers do
	}
	return n, e.err
}

// probe reads one byte past the declared size: io.EOF means the size was
// right.
func (e *exactReader) probe() error {
	var b [1]byte
	n, err := io.ReadFull(e.r, b[:])
	switch {
	case n > 0:
		return fmt.Errorf("%w: reader holds more than %d bytes", ErrSizeMismatch, e.size)
	case err == io.EOF:
		return io.EOF
	default:
		return err
	}
}
