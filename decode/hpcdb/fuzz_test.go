package hpcdb_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// seeds adds the named file of a small generated database and of the
// corpus samples (when present) to f.
func seeds(f *testing.F, name string) {
	dir := f.TempDir()
	if _, err := gen.Write(dir, gen.Config{Threads: 2, Contexts: 30, Metrics: 1, Samples: 4, ValidCCT: true, Unlisted: 1, Seed: 9}); err != nil {
		f.Fatal(err)
	}
	corpus := testdata.CorpusDir()
	for _, d := range []string{dir, filepath.Join(corpus, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"),
		filepath.Join(corpus, "hpctoolkit", "db-4.0-xml-hpcviewer-empty-trace"),
		filepath.Join(corpus, "hpctoolkit-metadb", "hpctoolkit-small"), filepath.Join(corpus, "hpctoolkit-metadb", "pipit-ping-pong"),
		filepath.Join(corpus, "hpctoolkit-metadb", "hpctoolkit-loops-cuda-nvidia-t")} {
		if b, err := os.ReadFile(filepath.Join(d, name)); err == nil {
			f.Add(b)
		}
	}
	// the damage of issue 27: a 4.0 cct.db claiming 2^26 contexts, a
	// profile.db whose first thread tuple is empty, an experiment.xml
	// followed by its own first 4 KiB (a second tree whose root has no
	// parent: the long fault run's server panic)
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return
	}
	switch name {
	case "experiment.xml":
		f.Add(append(b, b[:min(len(b), 4096)]...))
	case "cct.db":
		gen.SetContextCount(b, 1<<26)
		f.Add(b)
	case "profile.db":
		if p, err := hpcdb.NewProfileDB(bytes.NewReader(b), int64(len(b))); err == nil && len(p.Profiles) > 1 {
			gen.SetTupleCount(b, p.Profiles[1].TuplePtr, 0)
			f.Add(b)
		}
	}
}

func FuzzProfileDB(f *testing.F) {
	seeds(f, "profile.db")
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := hpcdb.NewProfileDB(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		p.Footer()
		for i := range p.Profiles {
			if tu, err := p.Tuple(i); err == nil {
				p.CheckTuple(i, tu)
			}
			pairs, err := p.CtxPairs(i, 0, uint64(min(p.Profiles[i].NumCtxs, 64))+1, nil)
			if err != nil {
				continue
			}
			for _, c := range pairs {
				p.ContextValues(i, c.Ctx, nil)
			}
		}
	})
}

func FuzzCCTDB(f *testing.F) {
	seeds(f, "cct.db")
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := hpcdb.NewCCTDB(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		c.Footer()
		c.DataValid(4)
		for ctx := uint32(0); ctx < min(c.Header.NumCtx, 64); ctx++ {
			c.ContextValues(ctx)
		}
	})
}

func FuzzTraceDB(f *testing.F) {
	seeds(f, "trace.db")
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := hpcdb.NewTraceDB(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for i := range tr.Lines {
			tr.Samples(i, 0, min(tr.Avail(i), 64), nil)
		}
	})
}

func FuzzExperiment(f *testing.F) {
	seeds(f, "experiment.xml")
	f.Fuzz(func(t *testing.T, b []byte) {
		x, _ := hpcdb.ParseExperiment(b)
		if x == nil {
			t.Fatal("nil experiment")
		}
		for i, n := range x.Nodes {
			if i > 0 && (n.Parent < 0 || int(n.Parent) >= i) {
				t.Fatalf("node %d has parent %d", i, n.Parent)
			}
		}
		for _, m := range x.Metrics {
			for _, fm := range m.Formulas {
				if e, err := hpcdb.ParseFormula(fm.Frm); err == nil {
					e.Eval(func(int) float64 { return 1 })
				}
			}
		}
	})
}

func FuzzMetaDB(f *testing.F) {
	seeds(f, "meta.db")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := hpcdb.NewMetaDB(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		m.Footer()
		for _, nd := range m.Contexts {
			if nd.Parent >= int32(len(m.Contexts)) || nd.Proc >= int64(len(m.Functions)) || nd.File >= int64(len(m.Files)) || nd.Module >= int64(len(m.Modules)) {
				t.Fatalf("context %d refers past its tables", nd.ID)
			}
		}
	})
}
