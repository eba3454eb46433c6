// Package sqlrow is the typed row of Floe's stream SQL: the values a SQL
// operator computes with, their binary encoding between SQL operators, and
// their text forms (CSV and JSON) at a job's sources and sinks.
//
// A row is a list of values whose types a table's schema fixes. Between two
// SQL operators a row travels as a record value in the binary encoding
// (AppendRow, DecodeRow): each value is one tag byte followed by its payload,
//
//	0x00 NULL       nothing
//	0x01 BOOLEAN    one byte, 0 or 1
//	0x02 BIGINT     8 bytes, little-endian two's complement
//	0x03 DOUBLE     8 bytes, little-endian IEEE 754 bits
//	0x04 VARCHAR    uvarint byte length, then the UTF-8 bytes
//	0x05 TIMESTAMP  8 bytes, little-endian milliseconds since the epoch
//
// with no header: the reader knows how many values to expect from the
// schema. Because every value is self-delimiting, the first n values of an
// encoded row are a prefix of it (PrefixLen), which is how a SQL GROUP BY
// keys records: the operator before the keyBy puts the grouping columns
// first, and the key is that prefix, which decodes as a row of its own.
// A TIMESTAMP is milliseconds since the Unix epoch, without a time zone
// (read as UTC), and its text is 2026-12-02 10:00:00.123 (timestamp.go).
//
// At the edges, ParseCSV and ParseJSON turn a source's line into a row of
// the table's schema, and AppendCSV and AppendJSON write a row for a sink.
// The package is pure: no I/O, no clock.
package sqlrow
