package formats

import (
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/internal/vfs"
)

// vocabulary is what docs/vocabulary.md allows: names for every format,
// and names for one format (keyed by format).
type vocabulary struct {
	names     map[string]bool
	perFormat map[string]map[string]bool
}

var backticked = regexp.MustCompile("`([^`]+)`")

func readVocabulary(t *testing.T) vocabulary {
	b, err := os.ReadFile("../docs/vocabulary.md")
	if err != nil {
		t.Fatal(err)
	}
	v := vocabulary{names: map[string]bool{}, perFormat: map[string]map[string]bool{}}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.Contains(cells[1], "`") {
			continue
		}
		var names []string
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
		if len(cells) == 5 { // | column | format | meaning |
			for _, f := range strings.Split(cells[2], ",") {
				f = strings.TrimSpace(f)
				if v.perFormat[f] == nil {
					v.perFormat[f] = map[string]bool{}
				}
				for _, n := range names {
					v.perFormat[f][n] = true
				}
			}
			continue
		}
		for _, n := range names {
			v.names[n] = true
		}
	}
	if len(v.names) < 20 {
		t.Fatalf("docs/vocabulary.md: only %d names read", len(v.names))
	}
	return v
}

// allows reports whether column may head a fixed column of a view of
// format.
func (v vocabulary) allows(format, column string) bool {
	if v.names[column] || v.perFormat[format][column] {
		return true
	}
	if strings.HasPrefix(column, "num_") {
		return true
	}
	for _, suffix := range []string{"_inc", "_exc", "_pct"} {
		if base, ok := strings.CutSuffix(column, suffix); ok && base != "" {
			return v.names[base] || v.perFormat[format][base] || base == "cost" || v.allows(format, base)
		}
	}
	return false
}

// pendingRenames are the columns that do not follow docs/vocabulary.md
// yet, by format; each rename removes its entries. No other column may
// stray from the vocabulary.
var pendingRenames = map[string]map[string]bool{}

// dataMade are the metric and event columns of the test sources that
// csvHeaders spells out in full (callgrind's event "Instructions").
var dataMade = map[string]map[string]bool{"callgrind": set("instructions", "instructions_inc", "instructions_exc")}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// TestCSVHeadersFollowVocabulary checks every column of every CSV of a
// source of each format against docs/vocabulary.md. Data-made columns
// (after the fixed ones csvHeaders names) may be any metric or event name
// but put inclusive/exclusive at the end, as <metric>_inc/<metric>_exc.
func TestCSVHeadersFollowVocabulary(t *testing.T) {
	v := readVocabulary(t)
	walkViews(t, func(src *vfs.Source, fsys fs.FS, p string) {
		if !strings.HasSuffix(p, ".csv") {
			return
		}
		columns := strings.Split(firstLine(t, fsys, p), ",")
		fixed := len(columns)
		for pattern, want := range csvHeaders {
			pat, format, _ := strings.Cut(pattern, "@")
			if ok, _ := path.Match(pat, p); ok && (format == "" || format == src.Format) && strings.HasSuffix(want, ",") {
				fixed = strings.Count(want, ",")
			}
		}
		for i, c := range columns {
			switch {
			case i < fixed && !v.allows(src.Format, c) && !pendingRenames[src.Format][c] && !dataMade[src.Format][c]:
				t.Errorf("%s %s: column %q is not in docs/vocabulary.md", src.Format, p, c)
			case i >= fixed && (strings.HasPrefix(c, "self_") || strings.HasPrefix(c, "inclusive_") || strings.HasPrefix(c, "exclusive_")) &&
				!pendingRenames[src.Format][c]:
				t.Errorf("%s %s: data-made column %q: write <metric>_inc/<metric>_exc", src.Format, p, c)
			}
		}
	})
}
