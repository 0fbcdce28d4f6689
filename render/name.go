package render

import (
	"strconv"
	"strings"
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

// A Uniquer gives each name once, by one rule for files and columns: a
// name already given (or reserved) gets _2, _3, ... before its extension
// (the first free one), in the order names are asked for.
type Uniquer struct {
	used map[string]bool
}

// NewUniquer returns a Uniquer for which the reserved names are taken.
func NewUniquer(reserved ...string) *Uniquer {
	u := &Uniquer{used: map[string]bool{}}
	for _, r := range reserved {
		u.used[r] = true
	}
	return u
}

// Unique returns name, or the first of name_2, name_3, ... (the suffix
// before the extension of a file name like "x.csv") not given yet.
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
		cand := base + "_" + strconv.Itoa(k) + ext
		if !u.used[cand] {
			u.used[cand] = true
			return cand
		}
	}
}
