package floe

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// ValueType tells the host how to render a queryable state's values
// (ABI state_declare flags, bits 8–15).
type ValueType uint8

// The value types of the ABI.
const (
	TypeBytes  ValueType = 0
	TypeInt64  ValueType = 1
	TypeString ValueType = 2
	TypeJSON   ValueType = 3
)

// Codec turns values of T into the bytes the host stores, and back.
type Codec[T any] interface {
	// Append appends the encoding of v to dst.
	Append(dst []byte, v T) []byte
	// Decode decodes b, which is valid only during the call.
	Decode(b []byte) (T, error)
	// Type is the ValueType queries render the bytes as.
	Type() ValueType
}

// Int64 stores an int64 as 8 bytes, little-endian.
var Int64 Codec[int64] = int64Codec{}

// String stores a string's UTF-8 bytes.
var String Codec[string] = stringCodec{}

// Bytes stores bytes as they are; Decode returns a copy.
var Bytes Codec[[]byte] = bytesCodec{}

// JSON returns a codec storing values of T as JSON.
func JSON[T any]() Codec[T] { return jsonCodec[T]{} }

type int64Codec struct{}

func (int64Codec) Append(dst []byte, v int64) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(v))
}

func (int64Codec) Decode(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("int64 state value of %d bytes, want 8", len(b))
	}
	return int64(binary.LittleEndian.Uint64(b)), nil
}

func (int64Codec) Type() ValueType { return TypeInt64 }

type stringCodec struct{}

func (stringCodec) Append(dst []byte, v string) []byte { return append(dst, v...) }
func (stringCodec) Decode(b []byte) (string, error)    { return string(b), nil }
func (stringCodec) Type() ValueType                    { return TypeString }

type bytesCodec struct{}

func (bytesCodec) Append(dst []byte, v []byte) []byte { return append(dst, v...) }
func (bytesCodec) Decode(b []byte) ([]byte, error)    { return append([]byte(nil), b...), nil }
func (bytesCodec) Type() ValueType                    { return TypeBytes }

type jsonCodec[T any] struct{}

func (jsonCodec[T]) Append(dst []byte, v T) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("floe: encoding state value as JSON: %v", err))
	}
	return append(dst, b...)
}

func (jsonCodec[T]) Decode(b []byte) (T, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}

func (jsonCodec[T]) Type() ValueType { return TypeJSON }
