package file

import (
	"bufio"
	"bytes"
)

// lineReader reads lines from a bufio.Reader without allocating: a line is a
// slice of the reader's buffer, or of a scratch buffer that is reused for
// lines longer than the reader's buffer.
type lineReader struct {
	r    *bufio.Reader
	long []byte
}

// next returns the next line with its "\n". At the end of the data it
// returns what is left, possibly nothing, without a "\n" and with io.EOF.
// The line is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	lr.long = append(lr.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = lr.r.ReadSlice('\n')
		lr.long = append(lr.long, line...)
	}
	return lr.long, err
}

// trimEOL removes a trailing "\n", and then the "\r" of a "\r\n". A "\r" not
// followed by "\n" stays.
func trimEOL(line []byte) []byte {
	if l, ok := bytes.CutSuffix(line, []byte("\n")); ok {
		return bytes.TrimSuffix(l, []byte("\r"))
	}
	return line
}
