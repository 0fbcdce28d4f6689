package render

import "github.com/hpcfs/hpcfs/decode"

// A Reporter is a view's binding's report (Binding.Report), kept for a
// view whose rows come from a pass made once and shared (a trace's stream
// counts, a database's imbalance statistics): the pass keeps what it
// found wrong in a decode.Problems, and each view that reads it reports
// them under its own path. Give Bind to Table.Bind; the zero Reporter
// drops what it is given until it is bound.
type Reporter struct{ report func(error) }

// Bind takes the view's report from its binding.
func (r *Reporter) Bind(b Binding) { r.report = b.Report }

// All reports every problem of each list.
func (r *Reporter) All(problems ...decode.Problems) {
	if r.report == nil {
		return
	}
	for _, p := range problems {
		for _, err := range p {
			r.report(err)
		}
	}
}
