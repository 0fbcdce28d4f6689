package render

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Name makes a column or file name from a name in the data (a metric, an
// event): lower-case ASCII snake_case, what SQL, shells and pandas take
// unquoted. Letters and digits are kept (ASCII only, lower-cased); every
// run of other characters (spaces, parentheses, punctuation, '_', non-ASCII)
// becomes one '_' between words, none at the ends: "Time_(10ns)_inc" ->
// "time_10ns_inc", "CPUTIME (sec):Sum" -> "cputime_sec_sum". A name left
// empty is prefix; one that starts with a digit or is an SQL reserved word
// gets prefix and '_' before it ("metric_2nd", "metric_order"). Names are
// at most 100 bytes.
func Name(s, prefix string) string {
	var b strings.Builder
	sep := false
	for i := 0; i < len(s) && b.Len() < maxNameLen; i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteByte(c)
			continue
		}
		sep = true
	}
	out := b.String()
	switch {
	case out == "":
		return prefix
	case out[0] >= '0' && out[0] <= '9' || sqlReserved[out]:
		return prefix + "_" + out
	}
	return out
}

const maxNameLen = 100

// sqlReserved are the reserved words of DuckDB and PostgreSQL (which
// cannot name a column unquoted).
var sqlReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast
		check collate column constraint create default deferrable desc describe distinct do else end
		except false fetch for foreign from grant group having in initially intersect into lateral
		leading limit not null offset on only or order pivot placing primary qualify references
		returning select show some summarize symmetric table then to trailing true union unique
		unpivot using variadic when where window with`) {
		sqlReserved[w] = true
	}
}

// maxFileName bounds file names made from data; Linux allows 255 bytes.
const maxFileName = 200

// maxFileExt bounds the extension SafeName keeps when it cuts a long name.
const maxFileExt = 16

// SafeName turns a name that comes from data into a file name: no '/', no
// NUL or control character, not "." or "..", not empty, at most 200 bytes
// of valid UTF-8. Other characters are kept.
func SafeName(s string) string {
	s = strings.ToValidUTF8(s, "_")
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, s)
	if len(s) > maxFileName {
		// Cut the stem, not a short extension (".json", ".pftrace"),
		// which tells clients the file's type.
		ext := filepath.Ext(s)
		if len(ext) > maxFileExt || len(ext) == len(s) {
			ext = ""
		}
		cut := maxFileName - len(ext)
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + ext
	}
	switch s {
	case "", ".", "..":
		s = "_" + s
	}
	return s
}

// A Uniquer gives each name once, by one rule for files and columns: a
// name already given (or reserved) gets a number k = 2, 3, ... before its
// extension (the first free one), in the order names are asked for. The
// names Name makes (columns, flame graphs) get "_k"; file names kept from
// the data (FileNames) get "~k", a mark that the data's own names, which
// keep their characters, do not suggest.
type Uniquer struct {
	used map[string]bool
	sep  string
}

// NewUniquer returns a Uniquer ("_k") for which the reserved names are taken.
func NewUniquer(reserved ...string) *Uniquer { return newUniquer("_", reserved) }

func newUniquer(sep string, reserved []string) *Uniquer {
	u := &Uniquer{used: map[string]bool{}, sep: sep}
	for _, r := range reserved {
		u.used[r] = true
	}
	return u
}

// FileNames makes each of names, from the data, a file name (SafeName)
// and gives each once ("x.csv", "x~2.csv", ...), in order; the reserved
// names (hpcfs's own files in that directory) are taken.
func FileNames(names []string, reserved ...string) []string {
	u := newUniquer("~", reserved)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = u.Unique(SafeName(n))
	}
	return out
}

// Unique returns name, or the first of name_2, name_3, ... (name~2, ...
// for FileNames; the number before the extension of a file name like
// "x.csv") not given yet.
func (u *Uniquer) Unique(name string) string {
	if !u.used[name] {
		u.used[name] = true
		return name
	}
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		base, ext = name[:i], name[i:]
	}
	for k := 2; ; k++ {
		cand := base + u.sep + strconv.Itoa(k) + ext
		if !u.used[cand] {
			u.used[cand] = true
			return cand
		}
	}
}
