package callgrind

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hpcfs/hpcfs/render"
)

// IsCachegrind reports whether the profile is in cachegrind's own format
// (valgrind's cachegrind.out.*: desc:, cmd: and events: lines, no
// creator:), which cg_annotate reads rather than callgrind_annotate.
func (f *File) IsCachegrind() bool {
	h := f.Header
	return h.Creator == "" && !h.FormatLine && h.Version == "" && h.Cmd != "" && len(h.Positions) == 1 && h.Positions[0] == "line"
}

// CgAnnotate returns the text of valgrind 3.19's "cg_annotate --auto=no"
// for a cachegrind-format profile, its "Data file:" line naming name. Like
// the Perl script it needs desc: lines, then cmd:, then events:, and a
// summary: line; functions are sorted by the absolute value of every event
// in turn and shown while one of them reaches its threshold (0.1 % of the
// first event, 100 % of the others). cg_annotate leaves the order of equal
// functions to Perl's hash order; here they come by name.
func (f *File) CgAnnotate(name string) ([]byte, error) {
	a := &annotator{totals: map[string]*ccost{}, signed: true}
	var desc, cmd strings.Builder
	state := 0 // 0: desc: lines, 1: events: line, 2: body
	var file string
	var cur *ccost
	off, err := f.perlLines(func(l string) error {
		switch state {
		case 0:
			if i := strings.Index(l, "desc:"); i >= 0 && i+5 < len(l) && isPerlSpace(l[i+5]) {
				rest := l[:i] + strings.TrimLeft(l[i+5:], " \t\n\r\f\v")
				text, nl := strings.CutSuffix(rest, "\n")
				desc.WriteString(render.EscapeName(text))
				if nl {
					desc.WriteString("\n")
				}
				return nil
			}
			v, ok := keyValue(l, "cmd")
			if !ok {
				return errors.New("missing command line")
			}
			cmd.WriteString(v)
			state = 1
		case 1:
			v, ok := keyValue(l, "events")
			if !ok {
				return errors.New("missing events line")
			}
			a.events = perlSplit(v)
			if len(a.events) == 0 {
				return errors.New("missing events line")
			}
			state = 2
		default:
			if blank(l) || l[0] == '#' {
				return nil
			}
			if _, rest, ok := position(l, true); ok && !strings.HasPrefix(l, "0x") {
				cc, err := a.lineCC(rest)
				if err != nil {
					return err
				}
				if cur == nil {
					return errors.New("cost line before fn=")
				}
				addTo(cc, cur)
				return nil
			}
			if v, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "fn="); ok {
				n := file + ":" + v
				cur = a.fnCC(n)
				a.totals[n] = cur
			} else if v, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "fl="); ok {
				file = v
			} else if r, ok := strings.CutPrefix(l, "summary:"); ok && r != "" && isPerlSpace(r[0]) {
				cc, err := a.lineCC(strings.TrimLeft(r, " \t\n\r\f\v"))
				if err != nil {
					return err
				}
				if len(cc) != len(a.events) {
					return errors.New("summary event and total event mismatch")
				}
				a.summary, a.haveSm = cc, true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if state < 2 || !a.haveSm {
		return nil, problem("annotate", off, "missing final summary line", nil)
	}
	return a.printCg(name, desc.String(), cmd.String()), nil
}

func absInt(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (a *annotator) printCg(name, desc, cmd string) []byte {
	var b bytes.Buffer
	b.WriteString(fancy)
	b.WriteString(desc) // escaped line by line
	fmt.Fprintf(&b, "Command:          %s\nData file:        %s\n", render.EscapeName(cmd), render.EscapeName(name))
	a.printOptions(&b, "0.1", "100")
	names, fw := a.printTotals(&b, " PROGRAM TOTALS")
	key := func(c ccost, i int) int64 {
		if v, ok := (cval{}).defAt(c, i); ok {
			return absInt(v.num())
		}
		return 1 // Perl: abs(-1)
	}
	sort.SliceStable(names, func(i, j int) bool {
		c, d := *a.totals[names[i]], *a.totals[names[j]]
		for k := range a.events {
			if x, y := key(c, k), key(d, k); x != y {
				return x > y
			}
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		cc := *a.totals[n]
		any := false
		for i := range a.events {
			v, _ := (cval{}).defAt(cc, i)
			s, _ := (cval{}).defAt(a.summary, i)
			var prop float64
			if sn := absInt(s.num()); sn != 0 {
				prop = absFloat(times100(v.num())) / float64(sn)
			}
			th := 100.0
			if i == 0 {
				th = 0.1
			}
			any = any || prop >= th
		}
		if !any {
			break
		}
		a.printCC(&b, cc, fw)
		b.WriteString(" " + render.EscapeName(n) + "\n")
	}
	b.WriteString("\n")
	return b.Bytes()
}

func absFloat(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
