package render

import "unicode/utf8"

// Names that come from the data (functions, files, modules, loom and
// thread names) may hold any bytes. Written raw, a NUL or an invalid
// UTF-8 byte makes a view binary to grep and unreadable to strict CSV
// readers, a CR or LF splits a line of a text view, and other control
// characters move the terminal's cursor. AppendName and AppendCSVField
// write such bytes as \xNN, leaving every other string unchanged.

// escapeByte reports whether b, a byte of valid UTF-8, is written as
// \xNN; keepLF keeps newlines (CSV fields quote them).
func escapeByte(b byte, keepLF bool) bool {
	return b < 0x20 && b != '\t' && (b != '\n' || !keepLF) || b == 0x7f
}

// Byte classes of byteClass, OR-ed over a string by scanClasses so that
// one branch-free pass tells whether a string is written as it is.
const (
	clQuote = 1 << iota // ',' and LF: a CSV field holding one is quoted
	clDQ                // '"': quoted in a CSV field, and doubled
	clEscLF             // written as \xNN in a CSV field: controls but tab and LF, DEL
	clEsc               // written as \xNN in a name: controls but tab, DEL
	clHigh              // not ASCII: the string's UTF-8 is checked
)

// byteClass is the class bits of each byte (escapeByte's rule, for
// valid UTF-8).
var byteClass = func() (t [256]uint8) {
	for i := range t {
		b := byte(i)
		switch {
		case b >= utf8.RuneSelf:
			t[i] = clHigh
		case b == ',':
			t[i] = clQuote
		case b == '"':
			t[i] = clDQ
		}
		if b == '\n' {
			t[i] |= clQuote
		}
		if b < utf8.RuneSelf && escapeByte(b, true) {
			t[i] |= clEscLF
		}
		if b < utf8.RuneSelf && escapeByte(b, false) {
			t[i] |= clEsc
		}
	}
	return t
}()

// scanClasses is the OR of the classes of s's bytes.
func scanClasses(s string) uint8 {
	var acc uint8
	for i := 0; i < len(s); i++ {
		acc |= byteClass[s[i]]
	}
	return acc
}

// needsEscape reports whether s holds a byte that is written as \xNN.
func needsEscape(s string, keepLF bool) bool {
	esc := uint8(clEsc)
	if keepLF {
		esc = clEscLF
	}
	acc := scanClasses(s)
	if acc&esc != 0 {
		return true
	}
	return acc&clHigh != 0 && !utf8.ValidString(s)
}

func appendEscaped(dst []byte, s string, keepLF bool) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, n == 1 && escapeByte(s[i], keepLF):
			dst = append(dst, '\\', 'x', hex[s[i]>>4], hex[s[i]&15])
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// AppendName appends a name from the data to a line of a text view:
// control characters but tab (NUL, CR, LF, ESC, ...), DEL and bytes that
// are not UTF-8 are written as \xNN, so that the name stays on its line
// and the view stays text.
func AppendName(dst []byte, s string) []byte {
	if !needsEscape(s, false) {
		return append(dst, s...)
	}
	return appendEscaped(dst, s, false)
}

// EscapeName is AppendName's text as a string; s itself when nothing
// needs escaping.
func EscapeName(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	return string(appendEscaped(nil, s, false))
}

// EscapeCSV is the text AppendCSVField writes for s before quoting (LF
// kept): for formats that compute a field's length without writing it.
func EscapeCSV(s string) string {
	if !needsEscape(s, true) {
		return s
	}
	return string(appendEscaped(nil, s, true))
}
