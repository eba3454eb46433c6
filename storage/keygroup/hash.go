package keygroup

import (
	"encoding/binary"
	"math/bits"
)

// Constants of MurmurHash3 x86 32-bit.
const (
	murmurC1 = 0xcc9e2d51
	murmurC2 = 0x1b873593
)

// Hash returns the MurmurHash3 x86 32-bit hash of key with seed 0. The
// result is part of the on-disk format: it decides which key group, and so
// which subtask and which state range, a key belongs to.
func Hash(key []byte) uint32 {
	var h uint32
	n := len(key)
	for len(key) >= 4 {
		h ^= mixK(binary.LittleEndian.Uint32(key))
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
		key = key[4:]
	}
	var k uint32
	switch len(key) {
	case 3:
		k ^= uint32(key[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(key[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(key[0])
		h ^= mixK(k)
	}
	return fmix(h ^ uint32(n))
}

// mixK scrambles one 4-byte block before it is folded into the hash.
func mixK(k uint32) uint32 {
	k *= murmurC1
	k = bits.RotateLeft32(k, 15)
	return k * murmurC2
}

// fmix is MurmurHash3's finalizer, which forces all bits to avalanche.
func fmix(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}
