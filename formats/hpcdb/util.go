package hpcdb

import (
	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/render"
	"io"
)

func dataErr(section string, off int64, msg string) error {
	return &decode.FormatError{Format: "hpcdb", Section: section, Off: off, Msg: msg}
}

func readRaw(r io.ReaderAt, size int64, off uint64, n int64, section string) ([]byte, error) {
	b, err := decode.ReadAt(r, size, int64(min(off, uint64(size)+1)), n)
	if err == io.ErrUnexpectedEOF {
		return nil, &decode.FormatError{Format: "hpcdb", Section: section, Off: int64(min(off, uint64(size))), Msg: "runs past the end of the file", Err: decode.ErrTruncated}
	}
	return b, err
}

func readProfileValues(p *hpcdb.ProfileDB, off, n uint64) ([]hpcdb.MetricValue, error) {
	return p.ValuesAt(int64(min(off, 1<<62)), n, nil)
}

func readProfileCtxs(p *hpcdb.ProfileDB, off, n uint64) ([]hpcdb.CtxIdx, error) {
	return p.CtxPairsAt(int64(min(off, 1<<62)), n, nil)
}

func streamParts(plan func() []render.Part, batch int64, onErr func(error)) render.View {
	return render.Stream(render.NewRows(batch, plan), onErr)
}
