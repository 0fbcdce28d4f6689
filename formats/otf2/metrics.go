package otf2

import (
	"io"
	"math"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// metricsGen renders metrics.csv: every value of every METRIC event, one
// row per member, location after location (each in file order). Its state
// is the location index and the reader's position there.
type metricsGen struct{ t *trace }

type metricsState struct {
	loc     int
	pos     otf2.Pos
	started bool
}

const metricsHeader = "location,t_ns,time_ns,metric_id,name,value\n"

type metricsCursor struct {
	t  *trace
	st metricsState
	r  *otf2.EventReader
	ev otf2.Event
}

func (g *metricsGen) Start(state any) (render.Cursor, error) {
	c := &metricsCursor{t: g.t}
	if st, ok := state.(metricsState); ok {
		c.st = st
	}
	return c, c.open()
}

// open starts the reader of the current location at its position.
func (c *metricsCursor) open() error {
	c.r = nil
	if c.st.loc >= len(c.t.ar.Locations) {
		return nil
	}
	f, size, err := c.t.files[c.st.loc].open()
	if err != nil {
		c.t.errors.Report(c.t.ar.EventFileName(c.t.ar.Locations[c.st.loc]), err)
		c.st.loc++
		c.st.pos = otf2.Pos{}
		return c.open()
	}
	c.r = c.t.ar.NewEventReaderAt(f, size, c.t.ar.Locations[c.st.loc])
	c.r.Seek(c.st.pos)
	return nil
}

func (c *metricsCursor) State() any {
	st := c.st
	if c.r != nil {
		st.pos = c.r.Tell()
	}
	return st
}

func (c *metricsCursor) Next(dst []byte) ([]byte, error) {
	start := len(dst)
	if !c.st.started {
		c.st.started = true
		dst = append(dst, metricsHeader...)
	}
	for len(dst)-start < mergeBatch {
		if c.r == nil {
			if len(dst) > start {
				return dst, nil
			}
			return dst, io.EOF
		}
		if !c.r.Next(&c.ev) {
			if err := c.r.Err(); err != nil {
				return dst, err
			}
			c.st.loc++
			c.st.pos = otf2.Pos{}
			if err := c.open(); err != nil {
				return dst, err
			}
			continue
		}
		if c.ev.Name() == "Metric" {
			dst = c.appendRows(dst, &c.ev)
		}
	}
	return dst, nil
}

// appendRows appends a row per member of metric event ev.
func (c *metricsCursor) appendRows(dst []byte, ev *otf2.Event) []byte {
	n := c.t.names
	members := n.metrics[ev.Vals[0]]
	for i, typ := range ev.Arr[0] {
		dst = appendU(dst, c.t.ar.Locations[c.st.loc].ID)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, c.t.clock.rel(ev.Time), 10)
		dst = append(dst, ',')
		dst = appendU(dst, c.t.clock.ns(ev.Time))
		dst = append(dst, ',')
		dst = appendU(dst, ev.Vals[0])
		dst = append(dst, ',')
		if i < len(members) {
			dst = n.csvName(dst, "metric_members", members[i])
		}
		dst = append(dst, ',')
		v := ev.Arr[1][i]
		switch typ {
		case typeInt64:
			dst = strconv.AppendInt(dst, int64(v), 10)
		case typeDouble:
			f := math.Float64frombits(v)
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				dst = render.AppendFloat(dst, f)
			} else {
				dst = render.AppendC(dst, f, 'g')
			}
		default:
			dst = appendU(dst, v)
		}
		dst = append(dst, '\n')
	}
	return dst
}
