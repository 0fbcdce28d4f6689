package hpcdb

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hpcfs/hpcfs/decode"
)

// METRICS.yaml (metrics/*.yaml beside a meta.db): hpcviewer's metric
// taxonomy. It names the inputs (a metric, propagation scope, formula and
// combination, i.e. one summary statistic of meta.db) and the taxonomic
// metrics built from them: per variant an inclusive and an exclusive
// formula over the inputs.

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
// Exclusive are nil when the file gives none. ChildVariants are the
// variants of the child metrics, in their order, that `first` and `sum`
// formulas read (`child variant:`; nil: this variant's name).
type TaxVariant struct {
	Name                 string
	Inclusive, Exclusive *TaxFormula
	ChildVariants        []string
}

// A TaxMetric is one taxonomic metric; Path joins the names from its root
// with " / ". Metrics come in depth-first order; Parent is the index of
// the parent metric, -1 for a root.
type TaxMetric struct {
	Path, Description string
	Variants          []TaxVariant
	Parent            int
}

// yNode is a YAML node with aliases resolved and merge keys applied; an
// aliased node is one yNode wherever it appears.
type yNode struct {
	keys  []string
	m     map[string]*yNode
	seq   []*yNode
	v     string
	isMap bool
	isSeq bool
}

// yaml12Directive matches the `%YAML 1.2` line METRICS.yaml files start
// with, which yaml.v3 refuses although it reads the documents: it becomes
// a comment, keeping line numbers.
var yaml12Directive = regexp.MustCompile(`(?m)^(%YAML 1\.[2-9][ \t]*)$`)

const (
	maxYAMLDepth     = 64
	maxTaxonomyItems = 100000 // metrics and formula nodes expanded at most
)

// ParseTaxonomy reads a METRICS.yaml file. On malformed input it returns a
// *decode.FormatError.
func ParseTaxonomy(b []byte) ([]TaxMetric, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(yaml12Directive.ReplaceAll(b, []byte("#$1")), &doc); err != nil {
		return nil, decode.ErrAt(format, "METRICS.yaml", 0, err.Error(), nil, nil)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	return taxonomy(resolve(doc.Content[0], map[*yaml.Node]*yNode{}, 0)), nil
}

// resolve converts a parsed node; memo makes an anchored node and its
// aliases one yNode (the inputs are recognised by identity) and ends
// alias cycles.
func resolve(n *yaml.Node, memo map[*yaml.Node]*yNode, depth int) *yNode {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || depth > maxYAMLDepth {
		return nil
	}
	if y, ok := memo[n]; ok {
		return y
	}
	y := &yNode{v: n.Value}
	memo[n] = y
	switch n.Kind {
	case yaml.SequenceNode:
		y.isSeq = true
		for _, c := range n.Content {
			if r := resolve(c, memo, depth+1); r != nil {
				y.seq = append(y.seq, r)
			}
		}
	case yaml.MappingNode:
		y.isMap, y.m = true, map[string]*yNode{}
		var merged []*yNode
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], resolve(n.Content[i+1], memo, depth+1)
			if k.Tag == "!!merge" {
				if v != nil && v.isSeq {
					merged = append(merged, v.seq...)
				} else {
					merged = append(merged, v)
				}
				continue
			}
			y.set(k.Value, v)
		}
		// explicit keys win over merged ones, earlier merged maps over later
		for _, mm := range merged {
			if mm != nil && mm.isMap {
				for _, k := range mm.keys {
					if _, ok := y.m[k]; !ok {
						y.set(k, mm.m[k])
					}
				}
			}
		}
	}
	return y
}

func (y *yNode) set(k string, v *yNode) {
	if _, ok := y.m[k]; !ok {
		y.keys = append(y.keys, k)
	}
	y.m[k] = v
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
	var walk func(n *yNode, path string, parent, depth int)
	walk = func(n *yNode, path string, parent, depth int) {
		if n == nil || !n.isMap || depth > maxYAMLDepth || budget <= 0 {
			return
		}
		budget--
		name := str(n.m["name"])
		if path != "" {
			name = path + " / " + name
		}
		tm := TaxMetric{Path: name, Description: str(n.m["description"]), Parent: parent}
		if vs := n.m["variants"]; vs != nil && vs.isMap {
			for _, vk := range vs.keys {
				v := TaxVariant{Name: vk}
				if vs.m[vk] == nil {
					tm.Variants = append(tm.Variants, v)
					continue
				}
				if cv := vs.m[vk].m["child variant"]; cv != nil && cv.isSeq {
					for _, c := range cv.seq {
						v.ChildVariants = append(v.ChildVariants, c.v)
					}
				} else if cv != nil {
					v.ChildVariants = []string{cv.v}
				}
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
		self := len(out) - 1
		if ch := n.m["children"]; ch != nil {
			for _, c := range ch.seq {
				walk(c, name, self, depth+1)
			}
		}
	}
	if rs := root.m["roots"]; rs != nil {
		for _, r := range rs.seq {
			walk(r, "", -1, 0)
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
