package hpcdb_test

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
)

// TestOwnColumnsAddUp checks, on every corpus database of both
// generations, that each <metric>_own column of cct.csv sums over the
// tree's rows to the root's inclusive value, while the _exc column
// (a procedure repeats its lines' values) sums to more.
func TestOwnColumnsAddUp(t *testing.T) {
	dirs := metaCases(t)
	for _, s := range corpusSamples {
		dirs = append(dirs, testdata.Corpus(t, "hpctoolkit", s))
	}
	repeated := 0 // _exc columns that sum to more than the total
	for _, dir := range dirs {
		t.Run(dir[strings.LastIndex(dir, "/")+1:], func(t *testing.T) {
			open := hpcdb.Open
			if _, err := os.Stat(filepath.Join(dir, "meta.db")); err == nil {
				open = hpcdb.OpenMeta
			}
			src, err := open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			rows := readCSV(t, src.FS(), "cct.csv")
			head := rows[0]
			checked := 0
			for c, name := range head {
				base, ok := strings.CutSuffix(name, "_own")
				if !ok {
					continue
				}
				inc, exc := col(t, head, base+"_inc"), col(t, head, base+"_exc")
				root, _ := strconv.ParseFloat(rows[1][inc], 64)
				var own, excSum float64
				for _, r := range rows[1:] {
					v, _ := strconv.ParseFloat(r[c], 64)
					if v < 0 {
						t.Fatalf("%s %v < 0", name, v)
					}
					e, _ := strconv.ParseFloat(r[exc], 64)
					own += v
					excSum += e
				}
				if math.Abs(own-root) > 1e-9*math.Max(1, root) {
					t.Errorf("%s sums to %v, root %s is %v", name, own, head[inc], root)
				}
				if excSum < root*(1-1e-9) {
					t.Errorf("%s sums to %v, less than the root's %v", head[exc], excSum, root)
				}
				if excSum > root*(1+1e-9) {
					repeated++
				}
				checked++
			}
			if checked == 0 {
				t.Fatalf("no _own column in %v", head)
			}
		})
	}
	if repeated == 0 {
		t.Error("no _exc column sums to more than its total: the corpus shows no repeated values")
	}
}
