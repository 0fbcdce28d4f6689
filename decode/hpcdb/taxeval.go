package hpcdb

import (
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// Aggregate returns "first" or "sum" when the formula is one of the
// variant formulas that take their values from the child metrics
// (METRICS.yaml `formula: first` / `formula: sum`), and "" otherwise.
func (f *TaxFormula) Aggregate() string {
	if f == nil || f.Input != nil || f.Seq {
		return ""
	}
	switch s := strings.TrimSpace(f.Text); s {
	case "first", "sum":
		return s
	}
	return ""
}

// taxFuncs maps METRICS.yaml's function names to ParseFormula's, by
// number of arguments (0: any): log:[a] is the natural logarithm there.
var taxFuncs = map[string]func(nargs int) string{
	"sum": nil, "prod": nil, "pow": nil, "sqrt": nil, "min": nil, "max": nil, "floor": nil, "ceil": nil,
	"log": func(n int) string {
		if n == 1 {
			return "ln"
		}
		return "log"
	},
	"strict floor": func(int) string { return "strictfloor" },
	"strict ceil":  func(int) string { return "strictceil" },
}

// Compile converts the formula into an Expr whose variable $k is the
// summary statistic id(in) names for each input; ok false from id means
// the input is not in the database, and is an error.
func (f *TaxFormula) Compile(id func(TaxInput) (int, bool)) (*Expr, error) {
	if f == nil {
		return nil, taxErr("no formula", nil)
	}
	var b strings.Builder
	if err := f.infix(&b, id); err != nil {
		return nil, err
	}
	return ParseFormula(b.String())
}

func taxErr(msg string, val any) error {
	return decode.ErrAt(format, "METRICS.yaml formula", 0, msg, val, nil)
}

// infix writes the formula as ParseFormula reads it.
func (f *TaxFormula) infix(b *strings.Builder, id func(TaxInput) (int, bool)) error {
	switch {
	case f.Input != nil:
		k, ok := id(*f.Input)
		if !ok {
			in := f.Input
			return taxErr("input is no summary statistic of meta.db", in.Metric+" scope="+in.Scope+" formula="+in.Formula+" combine="+in.Combine)
		}
		b.WriteString("$" + strconv.Itoa(k))
		return nil
	case !f.Seq:
		// numbers and operators only: a reference may come from an input
		if strings.ContainsAny(f.Text, "$#@") {
			return taxErr("unexpected text", f.Text)
		}
		b.WriteString(f.Text)
		return nil
	}
	items := f.Items
	if n := len(items); n >= 2 && !items[0].Seq && items[0].Input == nil && strings.HasSuffix(items[0].Text, "(") &&
		!items[n-1].Seq && items[n-1].Input == nil && items[n-1].Text == ")" {
		// a function call, as taxonomy() writes {name: [args]}
		name := strings.TrimSuffix(items[0].Text, "(")
		conv, ok := taxFuncs[name]
		if !ok {
			return taxErr("unknown function", name)
		}
		if conv != nil {
			nargs := 1
			for _, it := range items[1 : n-1] {
				if !it.Seq && it.Input == nil && it.Text == "," {
					nargs++
				}
			}
			name = conv(nargs)
		}
		b.WriteString(name + "(")
		for _, it := range items[1 : n-1] {
			if !it.Seq && it.Input == nil && it.Text == "," {
				b.WriteByte(',')
				continue
			}
			if err := it.group(b, id); err != nil {
				return err
			}
		}
		b.WriteByte(')')
		return nil
	}
	for _, it := range items {
		if err := it.group(b, id); err != nil {
			return err
		}
	}
	return nil
}

// group writes a sequence item in parentheses.
func (f *TaxFormula) group(b *strings.Builder, id func(TaxInput) (int, bool)) error {
	if !f.Seq {
		return f.infix(b, id)
	}
	b.WriteByte('(')
	if err := f.infix(b, id); err != nil {
		return err
	}
	b.WriteByte(')')
	return nil
}
