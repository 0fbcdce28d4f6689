package hpcdb

import (
	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/render"
)

func dataErr(section string, off int64, msg string) error {
	return decode.ErrAt("hpcdb", section, off, msg, nil, nil)
}

func readProfileValues(p *hpcdb.ProfileDB, off, n uint64) ([]hpcdb.MetricValue, error) {
	return p.ValuesAt(int64(min(off, 1<<62)), n, nil)
}

func readProfileCtxs(p *hpcdb.ProfileDB, off, n uint64) ([]hpcdb.CtxIdx, error) {
	return p.CtxPairsAt(int64(min(off, 1<<62)), n, nil)
}

// streamParts is a big view of the runs of records plan gives (a dump);
// it reports through its binding.
func streamParts(plan func() []render.Part, batch int64) render.View {
	return render.Stream(render.NewRows(batch, plan), nil)
}
