package render

// A DecimalPrefix writes increasing numbers such as consecutive
// timestamps, reusing the decimal digits above the last nine while they
// stay the same, for 19-digit nanosecond times (BenchmarkDecimalPrefix
// against BenchmarkStrconvTimes). The zero value is ready; the output
// equals strconv's for any number in any order (TestDecimalPrefix).
type DecimalPrefix struct {
	high   uint64 // v / 1e9 of the cached prefix
	prefix []byte // decimal digits of high; nil when none is cached
}

// AppendUint appends v in decimal.
func (p *DecimalPrefix) AppendUint(dst []byte, v uint64) []byte {
	high, low := v/1e9, v%1e9
	if high == 0 {
		return AppendUint(dst, v)
	}
	if p.prefix == nil || high != p.high {
		p.high, p.prefix = high, AppendUint(p.prefix[:0], high)
	}
	dst = append(dst, p.prefix...)
	return appendDigits(dst, low, 9)
}

// AppendInt appends v in decimal.
func (p *DecimalPrefix) AppendInt(dst []byte, v int64) []byte {
	if v < 0 {
		dst = append(dst, '-')
		return AppendUint(dst, -uint64(v))
	}
	return p.AppendUint(dst, uint64(v))
}
