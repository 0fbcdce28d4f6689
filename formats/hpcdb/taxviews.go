package hpcdb

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// taxonomy/NAME.csv: the values of metrics/NAME.yaml's taxonomic metrics
// per context, the columns hpcviewer shows. Each variant's inclusive and
// exclusive formula is evaluated per context over the summary statistics
// its inputs name, read from the summary profile as cct.csv reads them
// (sumReader); `first` and `sum` formulas take the child metrics' values.

// maxTaxColumns bounds the value columns of a taxonomy view (a hostile
// file may name up to maxTaxonomyItems formulas).
const maxTaxColumns = 4096

// readTaxonomy reads and parses one metrics/*.yaml file; on a problem it
// returns the metrics read before it (none for a YAML syntax error).
func readTaxonomy(p, rel string) ([]hpcdb.TaxMetric, error) {
	raw, err := os.ReadFile(p)
	if err == nil && len(raw) > maxTaxonomySize {
		err = errString(rel + ": larger than 4 MiB, not read")
	}
	if err != nil {
		return nil, err
	}
	return hpcdb.ParseTaxonomy(raw)
}

// taxonomyDir lists taxonomy/NAME.csv for each metrics/NAME.yaml that
// parses; one that does not gives an _errors.txt line and no view.
func (d *db) taxonomyDir() *vfs.Dir {
	return vfs.Lazy(func() []vfs.Entry {
		var out []vfs.Entry
		seen := map[string]bool{}
		for _, p := range d.taxonomyFiles() {
			rel, _ := filepath.Rel(d.dir, p)
			ms, err := readTaxonomy(p, rel)
			if err != nil {
				d.src.Errors.Report(rel, err)
			}
			name := strings.TrimSuffix(filepath.Base(p), ".yaml") + ".csv"
			if len(ms) == 0 || seen[name] {
				continue
			}
			seen[name] = true
			where := "taxonomy/" + name
			out = append(out, vfs.Entry{Name: name, Node: vfs.NewFile(d.taxTable(ms, rel, where).CSV())})
		}
		return out
	})
}

// A taxCol is one column of a taxonomy view: a formula over the summary
// statistics (expr), or the `first` or `sum` of child columns (kids; -1
// for a child without the variant). A column whose formula does not
// compile has neither and is empty.
type taxCol struct {
	name string
	expr *hpcdb.Expr
	agg  string
	kids []int
}

// eval is the column's value at one context: vals holds the values of
// the later columns (children come after their parents), NaN for none.
func (c *taxCol) eval(vals []float64, get func(int) float64) float64 {
	switch {
	case c.expr != nil:
		return c.expr.Eval(get)
	case c.agg == "first" && len(c.kids) > 0 && c.kids[0] >= 0:
		return vals[c.kids[0]]
	case c.agg == "sum":
		s := 0.0
		for _, k := range c.kids {
			if k < 0 {
				return math.NaN()
			}
			s += vals[k] // NaN stays NaN: a null child makes the sum null
		}
		return s
	}
	return math.NaN()
}

// taxColumns compiles the variants of ms into columns, reporting the
// formulas that cannot be evaluated against rel.
func (d *db) taxColumns(m *model, ms []hpcdb.TaxMetric, rel, where string) []taxCol {
	// input formulas are compared without whitespace, as METRICS.yaml
	// canonicalizes them
	canon := func(in hpcdb.TaxInput) hpcdb.TaxInput {
		in.Formula = strings.Join(strings.Fields(in.Formula), "")
		return in
	}
	stat := map[hpcdb.TaxInput]int{}
	for in, id := range m.taxInputs() {
		if k, ok := stat[canon(in)]; !ok || id < k { // one answer when two differ only in spaces
			stat[canon(in)] = id
		}
	}
	id := func(in hpcdb.TaxInput) (int, bool) {
		k, ok := stat[canon(in)]
		return k, ok
	}
	type key struct {
		metric  int
		variant string
		inc     bool
	}
	type pending struct {
		col     int
		metric  int
		variant hpcdb.TaxVariant
		inc     bool
	}
	at := map[key]int{}
	children := make([][]int, len(ms))
	for i, tm := range ms {
		if tm.Parent >= 0 && tm.Parent < i {
			children[tm.Parent] = append(children[tm.Parent], i)
		}
	}
	uniq := render.NewUniquer().Unique
	var cols []taxCol
	var aggs []pending
full:
	for i, tm := range ms {
		for _, v := range tm.Variants {
			for _, inc := range []bool{true, false} {
				f, suffix, side := v.Inclusive, " (I)", "inclusive"
				if !inc {
					f, suffix, side = v.Exclusive, " (E)", "exclusive"
					if f == nil && v.Inclusive.Aggregate() != "" {
						f = v.Inclusive // `formula: sum` is both, vector-wise
					}
				}
				if f == nil {
					continue
				}
				if len(cols) == maxTaxColumns {
					d.src.Errors.Report(rel, errString(where+": more than "+strconv.Itoa(maxTaxColumns)+" formulas; the view shows the first "+strconv.Itoa(maxTaxColumns)))
					break full
				}
				name := tm.Path
				if v.Name != "" {
					name += " " + v.Name
				}
				c := taxCol{name: uniq(columnName(name + suffix))}
				if _, dup := at[key{i, v.Name, inc}]; !dup {
					at[key{i, v.Name, inc}] = len(cols)
				}
				if c.agg = f.Aggregate(); c.agg != "" {
					aggs = append(aggs, pending{len(cols), i, v, inc})
				} else if e, err := f.Compile(id); err != nil {
					d.src.Errors.Report(rel, fmt.Errorf("%s [%s] %s: %v; column %s of %s is empty", tm.Path, v.Name, side, err, c.name, where))
				} else {
					c.expr = e
				}
				cols = append(cols, c)
			}
		}
	}
	// child variants: one name for all children, or one per child
	for _, p := range aggs {
		cv := p.variant.ChildVariants
		for k, ch := range children[p.metric] {
			name := p.variant.Name
			switch {
			case len(cv) == 1:
				name = cv[0]
			case k < len(cv):
				name = cv[k]
			}
			j, ok := at[key{ch, name, p.inc}]
			if !ok {
				j = -1
			}
			cols[p.col].kids = append(cols[p.col].kids, j)
		}
	}
	return cols
}

// taxTable is one taxonomy view: the contexts in cct.csv's order, each
// with ctxColumns, its name and a Float column per formula (empty where
// the formula has no value). The formulas are compiled once, on first
// use, so their problems are reported once.
func (d *db) taxTable(ms []hpcdb.TaxMetric, rel, where string) *render.Table {
	taxCols := sync.OnceValue(func() []taxCol { return d.taxColumns(d.model.get(), ms, rel, where) })
	return &render.Table{
		Layout: func() []render.Column {
			cols := append(ctxColumns[:len(ctxColumns):len(ctxColumns)], render.Column{Name: "name"})
			for _, c := range taxCols() {
				cols = append(cols, render.Column{Name: c.name, Kind: render.Float})
			}
			return cols
		},
		Open: func(pos []byte) (render.Scanner, error) {
			m := d.model.get()
			cols := taxCols()
			r := m.sumReader(d)
			vals := make([]float64, len(cols))
			zero := func(int) float64 { return 0 }
			return render.Counted(int64(m.numListed), func(i int64, row *render.Row) error {
				ctx := int(m.rows[i])
				_, has, err := r.values(ctx)
				if err != nil {
					return err
				}
				get := r.getRaw // no values: every statistic is 0, as in cct.csv
				if !has {
					get = zero
				}
				for j := len(cols) - 1; j >= 0; j-- {
					vals[j] = cols[j].eval(vals, get)
				}
				ctxCells(row, m, ctx)
				row.Str(m.ctxName(ctx))
				for _, v := range vals {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						row.Empty()
					} else {
						row.Float(v)
					}
				}
				return nil
			})(pos)
		},
	}
}
