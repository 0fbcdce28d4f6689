package hpcdb

import (
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

type validity struct {
	once sync.Once
	ok   bool
}

// cctValid reports whether cct.db's data area can be used; it samples a
// few blocks once and says in _errors.txt when contexts/ falls back to
// profile.db.
func (d *db) cctValid() bool {
	if d.cct == nil {
		return false
	}
	val := &d.valid
	val.once.Do(func() {
		ok, err := d.cct.DataValid(16)
		val.ok = ok && err == nil
		switch {
		case err != nil:
			d.src.Errors.Report("cct.db", err)
			d.src.Errors.Report("contexts", errString("cct.db data unreadable; contexts/ derived from profile.db"))
		case !ok:
			d.src.Errors.Report("contexts", errString("cct.db data area is zero-filled or malformed; contexts/ derived from profile.db"))
		}
	})
	return val.ok
}

type errString string

func (e errString) Error() string { return string(e) }

// numContexts is the size of the context-id space known without parsing
// experiment.xml.
func (d *db) numContexts() int {
	if d.cct != nil {
		return int(min(d.cct.Header.NumCtx, 1<<26))
	}
	if d.profile != nil && len(d.profile.Profiles) > 0 {
		if k := d.profile.Profiles[0].NumCtxs; k > 0 {
			// meta.db generation: ids are dense; a far larger one is damage
			limit := uint32(1 << 26)
			if d.metaPath != "" {
				limit = uint32(min(4*uint64(k)+1<<16, 1<<26))
			}
			if pairs, err := d.profile.CtxPairs(0, uint64(k-1), 1, nil); err == nil && pairs[0].Ctx < limit {
				return int(pairs[0].Ctx) + 1
			}
		}
	}
	return 0
}

// contextOrder lists the context ids in the order of their file names.
type contextOrder struct {
	once sync.Once
	perm []int32
}

func (d *db) contextNames() []int32 {
	o := &d.ctxOrder
	o.once.Do(func() { o.perm = lexicalOrder(d.numCtx) })
	return o.perm
}

// warmContexts does the first-use work of contexts/ ahead of the first
// request: the cct.db validity check (a few cold reads) and the name order.
func (d *db) warmContexts() {
	d.cctValid()
	d.contextNames()
}

func (d *db) contextsDir() *vfs.Dir {
	return vfs.Indexed(d.numCtx, func(i int) string { return strconv.Itoa(int(d.contextNames()[i])) + ".csv" },
		func(i int) vfs.Node {
			ctx := uint32(d.contextNames()[i])
			return vfs.NewFile(d.contextTable(ctx).SmallCSV(nil))
		})
}

// contextTable is contexts/<ctx>.csv: one row per thread profile with a
// value at ctx (its id, name and identifier values), one column per raw
// (MetricDB) metric.
func (d *db) contextTable(ctx uint32) *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			m := d.model.get()
			return metricColumns(profileColumns(m), m.thread)
		},
		Open: render.Groups(1, func(int64) (int64, func(int64, *render.Row) error, error) { return d.contextRows(ctx) }),
	}
}

// contextRows are the rows of contexts/<ctx>.csv, and the error that
// ends them early.
func (d *db) contextRows(ctx uint32) (int64, func(int64, *render.Row) error, error) {
	m := d.model.get()
	nt := len(m.thread)
	type row struct {
		prof uint32
		vals []float64
	}
	var rows []row
	add := func(prof uint32) []float64 {
		if len(rows) == 0 || rows[len(rows)-1].prof != prof {
			rows = append(rows, row{prof, make([]float64, nt)})
		}
		return rows[len(rows)-1].vals
	}
	var err error
	if d.cctValid() {
		var cv []hpcdb.CtxValue
		cv, err = d.cct.ContextValues(ctx)
		slices.SortStableFunc(cv, func(a, b hpcdb.CtxValue) int { return int(int64(a.Prof) - int64(b.Prof)) })
		for _, v := range cv {
			if v.Prof == 0 {
				continue
			}
			vals := add(v.Prof)
			if k, ok := m.threadIdx[int(v.Metric)]; ok {
				vals[k] = v.Value
			}
		}
	} else if d.profile != nil {
		found, errs := d.profileValuesAt(ctx)
		for i := 1; i < len(found); i++ {
			if err = errs[i]; err != nil {
				break
			}
			if len(found[i]) == 0 {
				continue
			}
			vals := add(uint32(i))
			for _, v := range found[i] {
				if k, ok := m.threadIdx[int(v.Metric)]; ok {
					vals[k] = v.Value
				}
			}
		}
	}
	return int64(len(rows)), func(i int64, row *render.Row) error {
		r := rows[i]
		profileCells(row, m, r.prof)
		for _, v := range r.vals {
			row.Float(v)
		}
		return nil
	}, err
}

// contextsTable is contexts.csv, the long form of contexts/: every row
// of every contexts/<ctx>.csv with its ctx_id in front, for a query over
// all of them (its Parquet twin). It is read profile by profile, each
// profile's context pairs in order, as profiles/ reads them (contexts/
// reads every profile for one context, a search each); positions are a
// thread profile and one of its context pair indexes.
func (d *db) contextsTable() *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			m := d.model.get()
			return metricColumns(append([]render.Column{{Name: "ctx_id", Kind: render.Uint}}, profileColumns(m)...), m.thread)
		},
		Open: func(pos []byte) (render.Scanner, error) {
			s := &contextsScan{d: d, m: d.model.get(), prof: 1}
			if len(pos) > 0 {
				r := render.NewStateReader(pos)
				s.prof = int(r.Uint(uint64(len(d.profile.Profiles))))
				s.k = r.Uint(math.MaxUint32)
				if err := r.Err(); err != nil {
					return nil, err
				}
			}
			return s, nil
		},
	}
}

// contextsScan scans the thread profiles (1 on) one after the other with
// a profileScan each.
type contextsScan struct {
	d    *db
	m    *model
	prof int
	k    uint64 // where the scan of prof starts
	in   *profileScan
}

func (s *contextsScan) Pos() []byte {
	k := s.k
	if s.in != nil {
		k = s.in.k
	}
	return (&render.StateWriter{}).Uint(uint64(s.prof)).Uint(k).Bytes()
}

func (s *contextsScan) Scan(r *render.Row) error {
	for s.d.numCtx > 0 && s.prof < len(s.d.profile.Profiles) {
		if s.in == nil {
			prof := uint32(s.prof)
			n := uint64(s.d.profile.Profiles[s.prof].NumCtxs)
			if s.k > n {
				return render.ErrBadState
			}
			s.in = &profileScan{d: s.d, m: s.m, prof: s.prof, n: n, k: s.k, idx: s.m.threadIdx, row: make([]float64, len(s.m.thread)),
				ctxCells: func(r *render.Row, ctx int) { profileCells(r.Uint(uint64(ctx)), s.m, prof) }, ctxLimit: s.d.numCtx}
		}
		if err := s.in.Scan(r); err != io.EOF {
			return err
		}
		s.prof, s.k, s.in = s.prof+1, 0, nil
	}
	return io.EOF
}

// lookupWorkers is how many profiles profileValuesAt searches at once: the
// searches are independent reads, mostly cold, and the disk serves them
// in parallel.
const lookupWorkers = 8

// profileValuesAt returns the values of context ctx in every profile
// (index = profile index) and the error of each search.
func (d *db) profileValuesAt(ctx uint32) ([][]hpcdb.MetricValue, []error) {
	n := len(d.profile.Profiles)
	found := make([][]hpcdb.MetricValue, n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(lookupWorkers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1))
				if i >= n {
					return
				}
				found[i], errs[i] = d.profile.ContextValues(i, ctx, nil)
			}
		}()
	}
	wg.Wait()
	return found, errs
}

func (d *db) profileEntries() []vfs.Entry {
	m := d.model.get()
	var out []vfs.Entry
	for i := range d.profile.Profiles {
		out = append(out, vfs.Entry{Name: m.profNames[i] + ".csv", Node: vfs.NewFile(d.profileTable(m, i).CSV())})
	}
	return out
}

// profileTable is profiles/<name>.csv: one row per context the profile
// has values for, in the profile's context index order; positions are
// context pair indexes.
func (d *db) profileTable(m *model, prof int) *render.Table {
	cols, idx := m.thread, m.threadIdx
	if prof == 0 || d.profile.Meta() && d.profile.Profiles[prof].IsSummary() {
		cols, idx = m.summary, m.sumIdx
	}
	n := uint64(d.profile.Profiles[prof].NumCtxs)
	return &render.Table{
		Layout: func() []render.Column { return metricColumns(profileCtxColumns, cols) },
		Open: func(pos []byte) (render.Scanner, error) {
			s := &profileScan{d: d, m: m, prof: prof, n: n, idx: idx, row: make([]float64, len(cols))}
			if len(pos) > 0 {
				r := render.NewStateReader(pos)
				s.k = r.Uint(n)
				if err := r.Err(); err != nil {
					return nil, err
				}
			}
			return s, nil
		},
	}
}

var profileCtxColumns = []render.Column{{Name: "ctx_id", Kind: render.Uint}, {Name: "kind"}, {Name: "name"}}

// metricColumns are the columns first followed by a Float column per
// metric.
func metricColumns(first []render.Column, metrics []metricCol) []render.Column {
	out := append([]render.Column(nil), first...)
	for _, c := range metrics {
		out = append(out, render.Column{Name: c.column, Kind: render.Float})
	}
	return out
}

// profileScan reads a profile's context pairs and values in batches of
// profileBatch.
type profileScan struct {
	d    *db
	m    *model
	prof int
	n, k uint64 // the profile's context pairs; the next one's index
	idx  map[int]int
	ctxs []hpcdb.CtxIdx // pairs k-j ...: row j is ctxs[j], ending at ctxs[j+1]
	j    int
	vals []hpcdb.MetricValue // the values of ctxs, from ctxs[0].Index
	row  []float64
	// ctxCells writes the cells before the metrics; nil: ctx_id, kind and
	// name (profileCtxColumns).
	ctxCells func(r *render.Row, ctx int)
	// ctxLimit, when > 0, leaves out pairs as contexts/ does: of contexts
	// from ctxLimit on, or without values
	ctxLimit int
}

const profileBatch = 512

func (s *profileScan) Pos() []byte { return (&render.StateWriter{}).Uint(s.k).Bytes() }

// load reads the batch of pairs from k.
func (s *profileScan) load() error {
	p := s.d.profile
	var err error
	s.j = 0
	s.ctxs, err = p.CtxPairs(s.prof, s.k, min(s.n-s.k, profileBatch)+1, s.ctxs[:0])
	if err != nil {
		return err
	}
	lo, hi := s.ctxs[0].Index, s.ctxs[len(s.ctxs)-1].Index
	if lo > hi {
		return dataErr("profile.db", 0, "context index out of order")
	}
	s.vals, err = p.Values(s.prof, lo, hi, s.vals[:0])
	return err
}

func (s *profileScan) Scan(r *render.Row) error {
	var ctx int
	for {
		if s.k >= s.n {
			return io.EOF
		}
		if s.j+1 >= len(s.ctxs) {
			if err := s.load(); err != nil {
				return err
			}
		}
		ctx = int(s.ctxs[s.j].Ctx)
		if s.ctxLimit == 0 || ctx < s.ctxLimit && s.ctxs[s.j].Index != s.ctxs[s.j+1].Index {
			break
		}
		s.j++
		s.k++
	}
	lo, hi := s.ctxs[0].Index, s.ctxs[len(s.ctxs)-1].Index
	a, b := s.ctxs[s.j].Index, s.ctxs[s.j+1].Index
	if a < lo || b > hi || a > b {
		return dataErr("profile.db", 0, "context index out of order")
	}
	clear(s.row)
	for _, v := range s.vals[a-lo : b-lo] {
		if col, ok := s.idx[int(v.Metric)]; ok {
			s.row[col] = v.Value
		}
	}
	if s.ctxCells != nil {
		s.ctxCells(r, ctx)
	} else {
		r.Uint(uint64(ctx)).Str(s.m.ctxKind(ctx)).Str(s.m.ctxName(ctx))
	}
	for _, v := range s.row {
		r.Float(v)
	}
	s.j++
	s.k++
	return nil
}

// lexicalOrder lists 0..n-1 in the order of their decimal names ("1.csv"
// sorts before "10.csv" because '.' < '0').
func lexicalOrder(n int) []int32 {
	out := make([]int32, 0, n)
	if n == 0 {
		return out
	}
	out = append(out, 0)
	last := n - 1
	cur := 1
	for len(out) < n {
		out = append(out, int32(cur))
		if cur*10 <= last {
			cur *= 10
			continue
		}
		for cur%10 == 9 || cur+1 > last {
			cur /= 10
		}
		cur++
	}
	return out
}
