package hpcdb

import "strconv"

// appendI64 appends v as C's %ld of an unsigned value.
func appendI64(dst []byte, v uint64) []byte { return strconv.AppendInt(dst, int64(v), 10) }

// appendI32 appends v as C's %d of an unsigned 32-bit value.
func appendI32(dst []byte, v uint32) []byte { return strconv.AppendInt(dst, int64(int32(v)), 10) }
