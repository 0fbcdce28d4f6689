package hpcrun_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestSummaryTilesTrace: summary/regions.csv of the corpus's traced
// measurements gives each profile's trace (runs of samples in one
// context, each lasting to the next run) as many events as its trace.csv
// has runs, adding up to the time from its first to its last sample.
func TestSummaryTilesTrace(t *testing.T) {
	fsys := open(t, testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small")).FS()
	regions := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "summary/regions.csv"))
	checked := 0
	for _, p := range testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "profiles.csv"))[1:] {
		b := testdata.ReadFS(t, fsys, p[0]+"/trace.csv")
		rows := testdata.ReadCSV(t, b)[1:]
		if len(rows) == 0 {
			continue
		}
		first, _ := strconv.ParseInt(rows[0][1], 10, 64)
		last, _ := strconv.ParseInt(rows[len(rows)-1][1], 10, 64)
		runs, ctx := int64(0), ""
		for _, r := range rows {
			if r[2] != ctx {
				runs, ctx = runs+1, r[2]
			}
		}
		var count, inc int64
		for _, r := range regions[1:] {
			if strings.Contains(r[2], "("+p[0]+")") {
				n, _ := strconv.ParseInt(r[5], 10, 64)
				d, _ := strconv.ParseInt(r[6], 10, 64)
				count, inc = count+n, inc+d
			}
		}
		if count != runs || inc != last-first {
			t.Errorf("%s: %d events of %d ns in regions.csv, trace.csv has %d runs over %d ns", p[0], count, inc, runs, last-first)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no traced profile")
	}
}
