package otf2

import "github.com/hpcfs/hpcfs/render"

// commMatrixTable is comm-matrix.csv, the communication matrix: per
// communicator, sender and receiver rank, the matched messages and their
// bytes, in the order of messages.csv's first message of each pair.
func (t *trace) commMatrixTable() *render.Table {
	cols := []render.Column{{Name: "communicator", Kind: render.String}, {Name: "sender", Kind: render.Uint},
		{Name: "receiver", Kind: render.Uint}, {Name: "messages", Kind: render.Uint}, {Name: "bytes", Kind: render.Uint}}
	return &render.Table{Columns: cols, Open: func(pos []byte) (render.Scanner, error) {
		type pair struct{ comm, sender, receiver uint64 }
		type cell struct {
			pair
			messages, bytes uint64
		}
		var cells []cell
		at := map[pair]int{}
		for _, m := range t.profile().messages {
			if !m.hasSend || !m.hasRecv {
				continue
			}
			k := pair{m.comm, m.sender, m.receiver}
			i, ok := at[k]
			if !ok {
				i = len(cells)
				at[k] = i
				cells = append(cells, cell{pair: k})
			}
			cells[i].messages++
			cells[i].bytes += m.bytes
		}
		return render.Counted(int64(len(cells)), func(i int64, r *render.Row) error {
			c := &cells[i]
			r.Str(t.names.name("comms", c.comm)).Uint(c.sender).Uint(c.receiver).Uint(c.messages).Uint(c.bytes)
			return nil
		})(pos)
	}}
}
