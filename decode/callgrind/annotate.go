package callgrind

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/render"
)

// Annotate returns the text of valgrind 3.19's
// "callgrind_annotate --auto=no" (inclusive: "--inclusive=yes --auto=no")
// for the profile, its "Profile data file" line naming name. It follows the
// Perl script line by line: its own reading of the file (names
// "file:function", costs summed per name, "summary:"/"totals:" or the sum),
// its column widths, thousands separators and percentages, its sort (costs
// of every event in turn, descending, then the name) and its default
// threshold (functions until 99 % of the first event is covered).
func (f *File) Annotate(name string, inclusive bool) ([]byte, error) {
	a := &annotator{inclusive: inclusive, compressed: map[string]*string{}, totals: map[string]*ccost{}, cfnTotals: map[string]*ccost{}, obj: map[string]*string{}}
	header := true
	off, err := f.perlLines(func(l string) error {
		var err error
		if header {
			header, err = a.headerLine(l)
		} else {
			err = a.bodyLine(l)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if header {
		return nil, problem("annotate", off, "missing events line", nil)
	}
	a.finish()
	return a.print(name), nil
}

// A cval is a Perl scalar of a cost list: undefined, a string read from
// the file, or a sum.
type cval struct {
	def bool
	s   string // the text read, when not a sum
	n   int64
	sum bool
}

func (v cval) num() int64 {
	if v.sum {
		return v.n
	}
	return perlInt(v.s)
}

func (v cval) text() string {
	if v.sum {
		return strconv.FormatInt(v.n, 10)
	}
	return v.s
}

type ccost []cval

// perlInt is Perl's numeric value of s, integers only.
func perlInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var n int64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// addTo is add_array_a_to_b: "." and undefined entries are not added.
func addTo(a ccost, b *ccost) {
	for i, v := range a {
		if !v.def || (!v.sum && v.s == ".") {
			continue
		}
		for len(*b) <= i {
			*b = append(*b, cval{})
		}
		(*b)[i] = cval{def: true, sum: true, n: (*b)[i].num() + v.num()}
	}
}

func isPerlSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// perlSplit is split(/\s+/, s): a leading empty field is kept, trailing
// ones are not.
func perlSplit(s string) []string {
	var out []string
	i := 0
	for {
		j := i
		for j < len(s) && !isPerlSpace(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		for j < len(s) && isPerlSpace(s[j]) {
			j++
		}
		if j >= len(s) {
			break
		}
		i = j
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

type annotator struct {
	inclusive                             bool
	signed                                bool // cg_annotate: thousands separators after a minus sign too
	pid, thread, part, desc, cmd, creator string
	hasLine, hasAddr                      bool
	events                                []string

	compressed map[string]*string
	totals     map[string]*ccost
	cfnTotals  map[string]*ccost
	obj        map[string]*string

	currObj            *string
	currFile, currFn   *string
	currName           *string
	currLine           string
	currCfile          *string
	currCname          string
	callCounter        int64
	currFnCC           *ccost
	totalsCC, summary  ccost
	haveTotals, haveSm bool
	calculated         bool
}

// keyValue matches /^key:\s+(.*)$/ on a line with its "\n".
func keyValue(l, key string) (string, bool) {
	if !strings.HasPrefix(l, key+":") {
		return "", false
	}
	r := l[len(key)+1:]
	if r == "" || !isPerlSpace(r[0]) {
		return "", false
	}
	r = strings.TrimRight(strings.TrimLeft(r, " \t\n\r\f\v"), "\n")
	return r, true
}

func blank(l string) bool {
	for i := 0; i < len(l); i++ {
		if !isPerlSpace(l[i]) {
			return false
		}
	}
	return true
}

// headerLine reads one header line; it reports whether the header goes on.
func (a *annotator) headerLine(l string) (bool, error) {
	if blank(l) || l[0] == '#' {
		return true, nil
	}
	if v, ok := strings.CutPrefix(l, "version:"); ok {
		v = strings.TrimLeft(v, " \t\n\r\f\v")
		if d := len(v) - len(strings.TrimLeft(v, "0123456789")); d > 0 {
			if perlInt(v[:d]) >= 2 {
				return false, fmt.Errorf("can't read format with major version %s", v[:d])
			}
			return true, nil
		}
	}
	for _, kv := range []struct {
		key string
		dst *string
	}{{"pid", &a.pid}, {"thread", &a.thread}, {"part", &a.part}, {"cmd", &a.cmd}, {"creator", &a.creator}} {
		if v, ok := keyValue(l, kv.key); ok {
			*kv.dst = v
			return true, nil
		}
	}
	if v, ok := keyValue(l, "desc"); ok {
		if !strings.HasPrefix(v, "Option:") {
			a.desc += render.EscapeName(v) + "\n"
		}
		return true, nil
	}
	if v, ok := keyValue(l, "positions"); ok {
		a.hasLine = strings.Contains(v, "line")
		a.hasAddr = strings.Contains(v, "addr") || strings.Contains(v, "instr")
		return true, nil
	}
	if _, ok := keyValue(l, "event"); ok {
		return true, nil
	}
	if v, ok := keyValue(l, "events"); ok {
		a.events = perlSplit(v)
		if len(a.events) == 0 || v == "" {
			return false, fmt.Errorf("missing events line")
		}
		return false, nil
	}
	return true, nil // callgrind_annotate warns and ignores
}

func (a *annotator) uncompressed(context, name string) *string {
	if len(name) > 2 && name[0] == '(' {
		if j := strings.IndexByte(name, ')'); j > 1 && strings.Trim(name[1:j], "0123456789") == "" {
			real := strings.TrimLeft(name[j+1:], " \t\n\r\f\v")
			key := context + "\x00" + name[1:j]
			if real == "" {
				return a.compressed[key]
			}
			a.compressed[key] = &real
			return &real
		}
	}
	return &name
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// relative applies the +N, -N and * substitutions at the start of s.
func (a *annotator) relative(s string) string {
	prev := perlInt(a.currLine)
	if strings.HasPrefix(a.currLine, "0x") {
		prev = 0
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		d := len(s) - len(strings.TrimLeft(s[1:], "0123456789")) - 1
		if d > 0 {
			n := perlInt(s[1 : 1+d])
			if s[0] == '-' {
				n = -n
			}
			return strconv.FormatInt(prev+n, 10) + s[1+d:]
		}
	}
	if s != "" && s[0] == '*' {
		return a.currLine + s[1:]
	}
	return s
}

// position strips /^(-?\d+|0x\w+)\s+/ (hexOK) or /^(\d+)\s+/ from s.
func position(s string, signed bool) (pos, rest string, ok bool) {
	i := 0
	if strings.HasPrefix(s, "0x") && signed {
		i = 2
		for i < len(s) && (s[i] == '_' || s[i] >= '0' && s[i] <= '9' || s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z') {
			i++
		}
		if i == 2 {
			i = 0
		}
	}
	if i == 0 {
		if signed && strings.HasPrefix(s, "-") {
			i = 1
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return "", s, false
		}
		i = j
	}
	if i >= len(s) || !isPerlSpace(s[i]) {
		return "", s, false
	}
	j := i
	for j < len(s) && isPerlSpace(s[j]) {
		j++
	}
	return s[:i], s[j:], true
}

func (a *annotator) lineCC(s string) (ccost, error) {
	f := perlSplit(s)
	if len(f) > len(a.events) {
		return nil, fmt.Errorf("too many event counts")
	}
	cc := make(ccost, len(f))
	for i, v := range f {
		cc[i] = cval{def: true, s: v}
	}
	return cc, nil
}

func (a *annotator) fnCC(name string) *ccost {
	if c, ok := a.totals[name]; ok {
		return c
	}
	return new(ccost)
}

func (a *annotator) bodyLine(l string) error {
	if blank(l) || l[0] == '#' {
		return nil
	}
	prevLine := a.currLine
	l = a.relative(l)
	if pos, rest, ok := position(l, true); ok {
		a.currLine = pos
		if a.hasAddr {
			if a.hasLine {
				saved := a.currLine
				a.currLine = prevLine
				rest = a.relative(rest)
				a.currLine = saved
				if p, r, ok := position(rest, false); ok {
					a.currLine, rest = p, r
				}
			} else {
				a.currLine = "0"
			}
		}
		cc, err := a.lineCC(rest)
		if err != nil {
			return err
		}
		if a.currFnCC == nil {
			a.currFnCC = new(ccost)
		}
		if a.callCounter > 0 {
			a.callCounter = 0
			c, ok := a.cfnTotals[a.currCname]
			if !ok {
				c = new(ccost)
				a.cfnTotals[a.currCname] = c
			}
			addTo(cc, c)
			if a.inclusive {
				addTo(cc, a.currFnCC)
			}
			return nil
		}
		addTo(cc, a.currFnCC)
		return nil
	}
	key, v, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "=")
	switch key {
	case "fn":
		a.commit()
		a.currFn = a.uncompressed("fn", v)
		name := str(a.currFile) + ":" + str(a.currFn)
		a.currName = &name
		a.obj[name] = a.currObj
		a.currFnCC = a.fnCC(name)
	case "ob":
		a.currObj = a.uncompressed("ob", v)
	case "fl":
		a.currFile = a.uncompressed("fl", v)
	case "fi", "fe":
		if a.currName == nil {
			return fmt.Errorf("unexpected fi/fe line")
		}
		a.commit()
		a.currFile = a.uncompressed("fl", v)
		name := str(a.currFile) + ":" + str(a.currFn)
		a.currName = &name
		a.currFnCC = a.fnCC(name)
	case "cob":
		a.uncompressed("ob", v)
	case "cfi", "cfl":
		a.currCfile = a.uncompressed("fl", v)
	case "cfn":
		cfn := a.uncompressed("fn", v)
		if str(a.currCfile) == "" {
			a.currCname = str(a.currFile) + ":" + str(cfn)
		} else {
			a.currCname = str(a.currCfile) + ":" + str(cfn)
			empty := ""
			a.currCfile = &empty
		}
	case "jfi":
		a.uncompressed("fl", v)
	case "jfn":
		a.uncompressed("fn", v)
	default:
		if c, ok := strings.CutPrefix(l, "calls="); ok {
			if d := len(c) - len(strings.TrimLeft(c, "0123456789")); d > 0 {
				a.callCounter = perlInt(c[:d])
			}
			return nil
		}
		for _, t := range []struct {
			key  string
			dst  *ccost
			have *bool
		}{{"totals:", &a.totalsCC, &a.haveTotals}, {"summary:", &a.summary, &a.haveSm}} {
			if r, ok := strings.CutPrefix(l, t.key); ok && r != "" && isPerlSpace(r[0]) {
				cc, err := a.lineCC(strings.TrimLeft(r, " \t\n\r\f\v"))
				if err != nil {
					return err
				}
				*t.dst, *t.have = cc, true
			}
		}
	}
	return nil
}

// commit stores the current function's costs under its name.
func (a *annotator) commit() {
	if a.currName != nil {
		if a.currFnCC == nil {
			a.currFnCC = new(ccost)
		}
		a.totals[*a.currName] = a.currFnCC
	}
}

func isZero(cc ccost) bool {
	for _, v := range cc {
		if v.def && v.num() > 0 {
			return false
		}
	}
	return true
}

func (a *annotator) finish() {
	if a.currFile != nil && a.currFn != nil {
		if a.currFnCC == nil {
			a.currFnCC = new(ccost)
		}
		a.totals[*a.currFile+":"+*a.currFn] = a.currFnCC
	}
	if a.inclusive {
		for name, c := range a.cfnTotals {
			a.totals[name] = c
		}
	}
	if !a.haveSm || isZero(a.summary) {
		a.summary = a.totalsCC
		if !a.haveTotals || isZero(a.summary) {
			a.calculated = true
			a.summary = nil
			for _, c := range a.totals {
				addTo(*c, &a.summary)
			}
		}
	}
}

func (v cval) defAt(cc ccost, i int) (cval, bool) {
	if i < len(cc) && cc[i].def {
		return cc[i], true
	}
	return v, false
}

var fancy = strings.Repeat("-", 80) + "\n"

// commify puts thousands separators into the leading digits (after a
// minus sign when signed).
func commify(s string, signed bool) string {
	if signed && strings.HasPrefix(s, "-") {
		return "-" + commify(s[1:], false)
	}
	for {
		d := len(s) - len(strings.TrimLeft(s, "0123456789"))
		if d < 4 {
			return s
		}
		s = s[:d-3] + "," + s[d-3:]
	}
}

func (a *annotator) widths(ccs ...ccost) []int {
	w := make([]int, len(a.events))
	for i, e := range a.events {
		w[i] = len(e)
	}
	for _, cc := range ccs {
		for i, v := range cc {
			if !v.def {
				continue
			}
			n := len(v.text())
			if n = n + (n-1)/3 + 9; n > w[i] {
				w[i] = n
			}
		}
	}
	return w
}

func (a *annotator) printCC(b *bytes.Buffer, cc ccost, w []int) {
	for i := range a.events {
		v, ok := cval{}.defAt(cc, i)
		count, perc := ".", "         "
		if ok {
			count = commify(v.text(), a.signed)
			if n := v.num(); n != 0 {
				var p float64
				if s := a.summary; i < len(s) && s[i].def && s[i].num() != 0 {
					p = times100(n) / float64(s[i].num())
				}
				if -9.995 < p && p < 99.995 {
					perc = fmt.Sprintf(" (%5.2f%%)", p)
				} else {
					perc = fmt.Sprintf(" (%5.1f%%)", p)
				}
			}
		}
		t := count + perc
		b.WriteString(strings.Repeat(" ", max(w[i]-len(t), 0)))
		b.WriteString(t)
		b.WriteByte(' ')
	}
}

func (a *annotator) printEvents(b *bytes.Buffer, w []int) {
	for i, e := range a.events {
		b.WriteString(e)
		b.WriteString(strings.Repeat(" ", max(w[i]-len(e), 0)))
		b.WriteByte(' ')
	}
}

// compare is mycmp: every event in turn, descending, undefined as -1.
func compare(c, d ccost) int {
	for i := 0; i < max(len(c), len(d)); i++ {
		x, y := int64(-1), int64(-1)
		if v, ok := (cval{}).defAt(c, i); ok {
			x = v.num()
		}
		if v, ok := (cval{}).defAt(d, i); ok {
			y = v.num()
		}
		if x != y {
			if y < x {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (a *annotator) print(name string) []byte {
	var b bytes.Buffer
	b.WriteString(fancy)
	// names from the data are escaped like every text view's (equal to
	// callgrind_annotate's output where they are plain text)
	fmt.Fprintf(&b, "Profile data file '%s'", render.EscapeName(name))
	if a.creator != "" {
		fmt.Fprintf(&b, " (creator: %s)", render.EscapeName(a.creator))
	}
	b.WriteString("\n")
	b.WriteString(fancy)
	b.WriteString(a.desc)
	target := a.cmd
	if target == "" {
		target = "(unknown)"
	}
	if a.pid != "" {
		target += " (PID " + a.pid
		if a.part != "" {
			target += ", part " + a.part
		}
		if a.thread != "" {
			target += ", thread " + a.thread
		}
		target += ")"
	}
	fmt.Fprintf(&b, "Profiled target:  %s\n", render.EscapeName(target))
	a.printOptions(&b, "99", "0")

	totals := " PROGRAM TOTALS"
	if a.calculated {
		totals += " (calculated)"
	}
	names, fw := a.printTotals(&b, totals)
	sort.Slice(names, func(i, j int) bool {
		if c := compare(*a.totals[names[i]], *a.totals[names[j]]); c != 0 {
			return c < 0
		}
		return names[i] < names[j]
	})
	curr := make([]int64, len(a.events))
	for _, n := range names {
		reached := true
		for i := range a.events {
			prop := times100(curr[i])
			if s, ok := (cval{}).defAt(a.summary, i); ok && s.num() > 0 {
				prop /= float64(s.num())
			}
			th := 0.0
			if i == 0 {
				th = 99
			}
			reached = reached && prop >= th
		}
		if reached {
			break
		}
		cc := *a.totals[n]
		a.printCC(&b, cc, fw)
		b.WriteString(" " + render.EscapeName(n))
		if o := str(a.obj[n]); o != "" {
			b.WriteString(" [" + render.EscapeName(o) + "]")
		}
		b.WriteString("\n")
		for i := range a.events {
			if v, ok := (cval{}).defAt(cc, i); ok {
				if a.inclusive {
					s, _ := (cval{}).defAt(a.summary, i)
					curr[i] = s.num() - v.num()
				} else {
					curr[i] += v.num()
				}
			}
		}
	}
	b.WriteString("\n")
	return b.Bytes()
}

// times100 is Perl's $x * 100: exact while it fits an integer, else a
// double.
func times100(x int64) float64 {
	if x > math.MaxInt64/100 || x < math.MinInt64/100 {
		return float64(x) * 100
	}
	return float64(x * 100)
}

// printTotals prints the summary row, with totals after it, and the
// function table's heading; it returns the function names and the
// function table's column widths.
func (a *annotator) printTotals(b *bytes.Buffer, totals string) ([]string, []int) {
	names := make([]string, 0, len(a.totals))
	all := make([]ccost, 0, len(a.totals))
	for n, c := range a.totals {
		names = append(names, n)
		all = append(all, *c)
	}
	sw := a.widths(a.summary)
	fw := a.widths(all...)
	b.WriteString(fancy)
	a.printEvents(b, sw)
	b.WriteString("\n")
	b.WriteString(fancy)
	a.printCC(b, a.summary, sw)
	b.WriteString(totals + "\n\n")
	b.WriteString(fancy)
	a.printEvents(b, fw)
	b.WriteString(" file:function\n")
	b.WriteString(fancy)
	return names, fw
}

// perlLines calls fn with each line of the profile as Perl reads it (with
// its "\n"); an error from fn stops it and comes back with the line's
// offset. It returns the offset of the end.
func (f *File) perlLines(fn func(l string) error) (int64, error) {
	lr := openLines(f.r, f.size, f.Gzip, f.start, f.end)
	for {
		line, off, term, tooLong, ok := lr.next()
		if !ok {
			break
		}
		if tooLong {
			return off, problem("annotate", off, "line longer than 1 MiB", nil)
		}
		l := string(line)
		if term {
			l += "\n"
		}
		if err := fn(l); err != nil {
			return off, decode.ErrAt(formatName, "annotate", off, err.Error(), nil, nil)
		}
	}
	if lr.err != nil {
		return lr.off, problem("annotate", lr.off, "reading: "+lr.err.Error(), nil)
	}
	return lr.off, nil
}

// printOptions prints the events and thresholds (first for the first
// event, rest for the others) and the options --auto=no leaves.
func (a *annotator) printOptions(b *bytes.Buffer, first, rest string) {
	ev := render.EscapeName(strings.Join(a.events, " "))
	th := make([]string, len(a.events))
	for i := range th {
		th[i] = rest
	}
	th[0] = first
	fmt.Fprintf(b, "Events recorded:  %s\nEvents shown:     %s\nEvent sort order: %s\nThresholds:       %s\n"+
		"Include dirs:     \nUser annotated:   \nAuto-annotation:  off\n\n", ev, ev, ev, strings.Join(th, " "))
}
