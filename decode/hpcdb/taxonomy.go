package hpcdb

import (
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// METRICS.yaml (metrics/*.yaml beside a meta.db): hpcviewer's metric
// taxonomy. It names the inputs (a metric, propagation scope, formula and
// combination, i.e. one summary statistic of meta.db) and the taxonomic
// metrics built from them: per variant an inclusive and an exclusive
// formula over the inputs. ParseTaxonomy reads the YAML subset these files
// use: block mappings and sequences, flow sequences, anchors, aliases,
// merge keys, tags, quoted scalars and comments.

// A TaxInput is one entry of `inputs:`.
type TaxInput struct {
	Metric, Scope, Formula, Combine string
}

// A TaxFormula is a formula of a variant: an input, an operator or number
// (Text), or a parenthesised sequence of them (Items).
type TaxFormula struct {
	Input *TaxInput
	Text  string
	Items []TaxFormula
	Seq   bool
}

// Render writes the formula infix, naming inputs with name.
func (f TaxFormula) Render(name func(TaxInput) string) string {
	switch {
	case f.Input != nil:
		return name(*f.Input)
	case !f.Seq:
		return f.Text
	}
	var b strings.Builder
	for _, it := range f.Items {
		s := it.Render(name)
		if it.Seq && len(it.Items) > 1 {
			s = "(" + s + ")"
		}
		b.WriteString(s)
	}
	return b.String()
}

// A TaxVariant is one variant of a taxonomic metric; Inclusive and
// Exclusive are nil when the file gives none.
type TaxVariant struct {
	Name                 string
	Inclusive, Exclusive *TaxFormula
}

// A TaxMetric is one taxonomic metric; Path joins the names from its root
// with " / ".
type TaxMetric struct {
	Path, Description string
	Variants          []TaxVariant
}

// yNode is a parsed YAML node.
type yNode struct {
	keys  []string
	m     map[string]*yNode
	seq   []*yNode
	v     string
	isMap bool
	isSeq bool
}

type yLine struct {
	indent int
	text   string
	no     int
}

type yParser struct {
	lines   []yLine
	i       int
	anchors map[string]*yNode
	depth   int
}

const (
	maxYAMLDepth     = 64
	maxTaxonomyItems = 100000 // metrics and formula nodes expanded at most
)

// ParseTaxonomy reads a METRICS.yaml file. On malformed input it returns
// what it understood with a *decode.FormatError.
func ParseTaxonomy(b []byte) ([]TaxMetric, error) {
	p := &yParser{anchors: map[string]*yNode{}}
	for no, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(stripComment(l), " \t\r")
		t := strings.TrimLeft(l, " ")
		if t == "" || strings.HasPrefix(t, "%") || t == "---" || t == "..." {
			continue
		}
		p.lines = append(p.lines, yLine{len(l) - len(t), t, no + 1})
	}
	var root *yNode
	var err error
	if len(p.lines) > 0 {
		root, err = p.block(p.lines[0].indent)
	}
	if err == nil && p.i < len(p.lines) {
		err = p.fail("unexpected indentation")
	}
	return taxonomy(root), err
}

func (p *yParser) fail(msg string) error {
	no := 0
	if p.i < len(p.lines) {
		no = p.lines[p.i].no
	}
	return decode.ErrAt(format, "METRICS.yaml", int64(no), msg+" (line "+strconv.Itoa(no)+")", nil, nil)
}

// stripComment removes a # comment outside quotes.
func stripComment(l string) string {
	var q byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			if i == 0 || strings.ContainsRune(" [,:-", rune(l[i-1])) {
				q = c
			}
		case c == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return l[:i]
		}
	}
	return l
}

// block parses the mapping or sequence whose lines start at indent.
func (p *yParser) block(indent int) (*yNode, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxYAMLDepth {
		return nil, p.fail("nested too deeply")
	}
	if p.i >= len(p.lines) {
		return &yNode{}, nil
	}
	if t := p.lines[p.i].text; t == "-" || strings.HasPrefix(t, "- ") {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func (p *yParser) sequence(indent int) (*yNode, error) {
	n := &yNode{isSeq: true}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent {
		l := p.lines[p.i]
		if l.text != "-" && !strings.HasPrefix(l.text, "- ") {
			break
		}
		rest := strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")
		anchor := ""
		if strings.HasPrefix(rest, "&") {
			k := strings.IndexByte(rest, ' ')
			if k < 0 {
				anchor, rest = rest[1:], ""
			} else {
				anchor, rest = rest[1:k], strings.TrimLeft(rest[k:], " ")
			}
		}
		var item *yNode
		var err error
		switch {
		case rest == "":
			p.i++
			item, err = p.nested(indent)
		case isMapLine(rest):
			// "- key: value": a mapping whose first line is the rest
			p.lines[p.i] = yLine{indent + len(l.text) - len(rest), rest, l.no}
			item, err = p.mapping(p.lines[p.i].indent)
		default:
			p.i++
			item, err = p.scalar(rest)
		}
		if err != nil {
			return n, err
		}
		if anchor != "" {
			p.anchors[anchor] = item
		}
		n.seq = append(n.seq, item)
	}
	return n, nil
}

// nested parses the block below the current line (deeper than indent), or
// an empty node.
func (p *yParser) nested(indent int) (*yNode, error) {
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return p.block(p.lines[p.i].indent)
	}
	return &yNode{}, nil
}

func isMapLine(t string) bool {
	if t == "" || t[0] == '[' || t[0] == '{' || t[0] == '*' {
		return false
	}
	if t[0] == '"' || t[0] == '\'' {
		k := strings.IndexByte(t[1:], t[0])
		return k >= 0 && strings.HasPrefix(t[k+2:], ":") && (len(t) == k+3 || t[k+3] == ' ')
	}
	return strings.Contains(t, ": ") || strings.HasSuffix(t, ":")
}

func (p *yParser) mapping(indent int) (*yNode, error) {
	n := &yNode{isMap: true, m: map[string]*yNode{}}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent {
		l := p.lines[p.i]
		if !isMapLine(l.text) {
			return n, p.fail("expected key: value")
		}
		k := strings.Index(l.text, ": ")
		if l.text[0] == '"' || l.text[0] == '\'' {
			k = strings.IndexByte(l.text[1:], l.text[0]) + 2
			if k >= len(l.text)-1 {
				k = -1
			}
		}
		key, rest := strings.TrimSuffix(l.text, ":"), ""
		if k >= 0 {
			key, rest = l.text[:k], strings.TrimSpace(l.text[k+2:])
		}
		key = unquote(strings.TrimSpace(key))
		anchor := ""
		if strings.HasPrefix(rest, "&") {
			j := strings.IndexByte(rest, ' ')
			if j < 0 {
				anchor, rest = rest[1:], ""
			} else {
				anchor, rest = rest[1:j], strings.TrimLeft(rest[j:], " ")
			}
		}
		rest = stripTag(rest)
		p.i++
		var v *yNode
		var err error
		if rest != "" && (rest[0] == '>' || rest[0] == '|') {
			v = p.blockScalar(indent, rest[0] == '>')
		} else if rest == "" {
			if p.i < len(p.lines) && p.lines[p.i].indent == indent && strings.HasPrefix(p.lines[p.i].text, "- ") {
				v, err = p.sequence(indent)
			} else {
				v, err = p.nested(indent)
			}
		} else {
			v, err = p.scalar(rest)
		}
		if err != nil {
			return n, err
		}
		if anchor != "" {
			p.anchors[anchor] = v
		}
		if key == "<<" && v.isMap {
			for _, mk := range v.keys {
				if _, ok := n.m[mk]; !ok {
					n.keys = append(n.keys, mk)
					n.m[mk] = v.m[mk]
				}
			}
			continue
		}
		if _, ok := n.m[key]; !ok {
			n.keys = append(n.keys, key)
		}
		n.m[key] = v
	}
	return n, nil
}

// blockScalar reads the lines of a > or | scalar (deeper than indent).
func (p *yParser) blockScalar(indent int, fold bool) *yNode {
	var parts []string
	for p.i < len(p.lines) && p.lines[p.i].indent > indent {
		parts = append(parts, p.lines[p.i].text)
		p.i++
	}
	sep := "\n"
	if fold {
		sep = " "
	}
	return &yNode{v: strings.Join(parts, sep)}
}

func stripTag(s string) string {
	if strings.HasPrefix(s, "!!") {
		if k := strings.IndexByte(s, ' '); k >= 0 {
			return strings.TrimLeft(s[k:], " ")
		}
		return ""
	}
	return s
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// scalar parses an inline value: alias, flow sequence or scalar.
func (p *yParser) scalar(s string) (*yNode, error) {
	s = stripTag(s)
	if strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{") {
		n, rest, err := p.flow(s, 0)
		if err == nil && strings.TrimSpace(rest) != "" {
			err = p.fail("text after a flow sequence")
		}
		return n, err
	}
	if strings.HasPrefix(s, "*") {
		if a, ok := p.anchors[s[1:]]; ok {
			return a, nil
		}
		return &yNode{v: s}, p.fail("unknown alias " + s)
	}
	return &yNode{v: unquote(s)}, nil
}

// flow parses a flow sequence at the start of s; it returns the rest.
func (p *yParser) flow(s string, depth int) (*yNode, string, error) {
	if depth > maxYAMLDepth {
		return &yNode{isSeq: true}, "", p.fail("nested too deeply")
	}
	n := &yNode{isSeq: true}
	end := byte(']')
	if s[0] == '{' {
		n = &yNode{isMap: true, m: map[string]*yNode{}}
		end = '}'
	}
	s = s[1:]
	for {
		s = strings.TrimLeft(s, " ")
		key := ""
		if n.isMap && s != "" && s[0] != end && s[0] != ',' {
			k := strings.Index(s, ":")
			if k < 0 {
				return n, "", p.fail("flow mapping entry without a colon")
			}
			key, s = unquote(strings.TrimSpace(s[:k])), strings.TrimLeft(s[k+1:], " ")
		}
		var item *yNode
		var err error
		switch {
		case s == "":
			return n, "", p.fail("unterminated flow collection")
		case s[0] == end && key == "":
			return n, s[1:], nil
		case s[0] == ',' && key == "":
			s = s[1:]
			continue
		case s[0] == '[' || s[0] == '{':
			item, s, err = p.flow(s, depth+1)
		default:
			k := strings.IndexAny(s, ",]}")
			if k < 0 {
				k = len(s)
			}
			if k == 0 {
				return n, "", p.fail("unexpected " + s[:1] + " in a flow collection")
			}
			item, err = p.scalar(strings.TrimSpace(s[:k]))
			s = s[k:]
		}
		if n.isMap {
			if _, ok := n.m[key]; !ok {
				n.keys = append(n.keys, key)
			}
			n.m[key] = item
		} else {
			n.seq = append(n.seq, item)
		}
		if err != nil {
			return n, "", err
		}
	}
}

// taxonomy extracts the taxonomic metrics of a parsed file.
func taxonomy(root *yNode) []TaxMetric {
	if root == nil || !root.isMap {
		return nil
	}
	inputs := map[*yNode]*TaxInput{}
	if in := root.m["inputs"]; in != nil {
		for _, n := range in.seq {
			inputs[n] = toInput(n)
		}
	}
	var out []TaxMetric
	// aliases make the tree a graph: budget bounds what is expanded
	budget := maxTaxonomyItems
	var walk func(n *yNode, path string, depth int)
	walk = func(n *yNode, path string, depth int) {
		if n == nil || !n.isMap || depth > maxYAMLDepth || budget <= 0 {
			return
		}
		budget--
		name := str(n.m["name"])
		if path != "" {
			name = path + " / " + name
		}
		tm := TaxMetric{Path: name, Description: str(n.m["description"])}
		if vs := n.m["variants"]; vs != nil && vs.isMap {
			for _, vk := range vs.keys {
				v := TaxVariant{Name: vk}
				if f := vs.m[vk].m["formula"]; f != nil {
					if f.isMap {
						v.Inclusive = formula(f.m["inclusive"], inputs, &budget)
						v.Exclusive = formula(f.m["exclusive"], inputs, &budget)
					} else {
						v.Inclusive = formula(f, inputs, &budget)
					}
				}
				tm.Variants = append(tm.Variants, v)
			}
		}
		out = append(out, tm)
		if ch := n.m["children"]; ch != nil {
			for _, c := range ch.seq {
				walk(c, name, depth+1)
			}
		}
	}
	if rs := root.m["roots"]; rs != nil {
		for _, r := range rs.seq {
			walk(r, "", 0)
		}
	}
	return out
}

func str(n *yNode) string {
	if n == nil {
		return ""
	}
	return n.v
}

func toInput(n *yNode) *TaxInput {
	if n == nil || !n.isMap {
		return nil
	}
	in := &TaxInput{Metric: str(n.m["metric"]), Scope: str(n.m["scope"]), Formula: str(n.m["formula"]), Combine: str(n.m["combine"])}
	if in.Formula == "" {
		in.Formula = "$$"
	}
	if in.Combine == "" {
		in.Combine = "sum"
	}
	return in
}

// formula converts a formula node: a map with custom/standard (custom is
// preferred, as hpcviewer shows it), an input, a sequence or a scalar.
func formula(n *yNode, inputs map[*yNode]*TaxInput, budget *int) *TaxFormula {
	if n == nil || *budget <= 0 {
		return nil
	}
	*budget--
	if in, ok := inputs[n]; ok && in != nil {
		return &TaxFormula{Input: in}
	}
	switch {
	case n.isMap && n.m["metric"] != nil:
		return &TaxFormula{Input: toInput(n)}
	case n.isMap && (n.m["custom"] != nil || n.m["standard"] != nil):
		if f := formula(n.m["custom"], inputs, budget); f != nil {
			return f
		}
		return formula(n.m["standard"], inputs, budget)
	case n.isMap && len(n.keys) == 1:
		// {op: [args]}: the operator between the arguments, or a function
		op, args := n.keys[0], n.m[n.keys[0]]
		f := &TaxFormula{Seq: true}
		var list []*yNode
		if args.isSeq {
			list = args.seq
		} else {
			list = []*yNode{args}
		}
		fn := op != "" && (op[0] >= 'a' && op[0] <= 'z' || op[0] >= 'A' && op[0] <= 'Z')
		if fn {
			f.Items = append(f.Items, TaxFormula{Text: op + "("})
		}
		for i, a := range list {
			if i > 0 {
				sep := op
				if fn {
					sep = ","
				}
				f.Items = append(f.Items, TaxFormula{Text: sep})
			}
			if g := formula(a, inputs, budget); g != nil {
				f.Items = append(f.Items, *g)
			}
		}
		if fn {
			f.Items = append(f.Items, TaxFormula{Text: ")"})
		}
		return f
	case n.isSeq:
		f := &TaxFormula{Seq: true}
		for _, it := range n.seq {
			if g := formula(it, inputs, budget); g != nil {
				f.Items = append(f.Items, *g)
			}
		}
		return f
	}
	return &TaxFormula{Text: n.v}
}
