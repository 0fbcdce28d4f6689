package render

import (
	"encoding/csv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscapeNames(t *testing.T) {
	for _, c := range []struct{ in, text, csv string }{
		{"main", "main", "main"},
		{"a,b", "a,b", `"a,b"`},
		{"tab\there", "tab\there", "tab\there"},
		{"nul\x00x", `nul\x00x`, `nul\x00x`},
		{"cr\rlf\n", `cr\x0dlf\x0a`, "\"cr\\x0dlf\n\""},
		{"esc\x1b[2J", `esc\x1b[2J`, `esc\x1b[2J`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`, `bad\xffutf8\xc3`},
		{"ünïcödé 名前", "ünïcödé 名前", "ünïcödé 名前"},
	} {
		if got := string(AppendName(nil, c.in)); got != c.text || EscapeName(c.in) != c.text {
			t.Errorf("AppendName(%q) = %q, want %q", c.in, got, c.text)
		}
		got := string(AppendCSVField(nil, c.in))
		if got != c.csv {
			t.Errorf("AppendCSVField(%q) = %q, want %q", c.in, got, c.csv)
		}
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\x00\r") {
			t.Errorf("AppendCSVField(%q) = %q: not clean text", c.in, got)
		}
		rec, err := csv.NewReader(strings.NewReader(got + "\n")).Read()
		if err != nil || len(rec) != 1 {
			t.Errorf("AppendCSVField(%q) does not read back as one field: %v", c.in, err)
		}
	}
}

// TestCSVFieldFastPath checks AppendCSVField's and csvStringLen's byte
// class scan against the general rule (EscapeCSV, then FieldNeedsQuotes,
// quotes doubled) for every string of up to two bytes and some longer.
func TestCSVFieldFastPath(t *testing.T) {
	want := func(s string) string {
		e := EscapeCSV(s)
		if !FieldNeedsQuotes(e) {
			return e
		}
		return `"` + strings.ReplaceAll(e, `"`, `""`) + `"`
	}
	check := func(s string) {
		got := string(AppendCSVField([]byte("x"), s))
		if w := "x" + want(s); got != w {
			t.Errorf("AppendCSVField(%q) = %q, want %q", s, got[1:], w[1:])
		}
		if n := csvStringLen(s); n != len(got)-1 {
			t.Errorf("csvStringLen(%q) = %d, want %d", s, n, len(got)-1)
		}
	}
	for a := 0; a < 256; a++ {
		check(string([]byte{byte(a)}))
		for b := 0; b < 256; b++ {
			check(string([]byte{byte(a), byte(b)}))
		}
	}
	for _, s := range []string{"", `\.`, `\.x`, "main;foo(int, char)", `a "b" c`, " lead", "\tlead", "x\ny", "é,\"", "\xff\"", "a\x00\"b\"", "\u00a0x"} {
		check(s)
	}
}
