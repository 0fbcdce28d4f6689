package hpcdb

import (
	"math"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// An Expr is a parsed metric formula: $id references, numbers, + - * / ^,
// unary minus and the functions sqrt, log (one or two arguments), ln,
// exp, abs, min, max, sum, prod, pow, floor, ceil, strictfloor (the
// largest integer below) and strictceil (the smallest above).
type Expr struct {
	op   byte // 'n' number, '$' variable, 'f' function, or the operator
	num  float64
	id   int
	fn   string
	args []*Expr
}

// Vars returns the metric ids the expression refers to.
func (e *Expr) Vars() []int {
	var out []int
	var walk func(*Expr)
	walk = func(e *Expr) {
		if e.op == '$' {
			out = append(out, e.id)
		}
		for _, a := range e.args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// Eval evaluates the expression with the values of the referenced ids.
func (e *Expr) Eval(val func(id int) float64) float64 {
	switch e.op {
	case 'n':
		return e.num
	case '$':
		return val(e.id)
	case 'u':
		return -e.args[0].Eval(val)
	case '+', '-', '*', '/', '^':
		a, b := e.args[0].Eval(val), e.args[1].Eval(val)
		switch e.op {
		case '+':
			return a + b
		case '-':
			return a - b
		case '*':
			return a * b
		case '/':
			return a / b
		}
		return math.Pow(a, b)
	}
	args := make([]float64, len(e.args))
	for i, a := range e.args {
		args[i] = a.Eval(val)
	}
	switch e.fn {
	case "sqrt":
		return math.Sqrt(args[0])
	case "ln":
		return math.Log(args[0])
	case "log":
		if len(args) == 2 {
			return math.Log(args[0]) / math.Log(args[1])
		}
		return math.Log10(args[0])
	case "exp":
		return math.Exp(args[0])
	case "abs":
		return math.Abs(args[0])
	case "floor":
		return math.Floor(args[0])
	case "ceil":
		return math.Ceil(args[0])
	case "strictfloor":
		return math.Ceil(args[0]) - 1
	case "strictceil":
		return math.Floor(args[0]) + 1
	case "pow":
		return math.Pow(args[0], args[1])
	case "prod":
		r := 1.0
		for _, v := range args {
			r *= v
		}
		return r
	case "min", "max", "sum":
		r := args[0]
		for _, v := range args[1:] {
			switch e.fn {
			case "min":
				r = math.Min(r, v)
			case "max":
				r = math.Max(r, v)
			default:
				r += v
			}
		}
		return r
	}
	return math.NaN()
}

var arity = map[string][2]int{
	"sqrt": {1, 1}, "ln": {1, 1}, "log": {1, 2}, "exp": {1, 1}, "abs": {1, 1},
	"floor": {1, 1}, "ceil": {1, 1}, "min": {1, 64}, "max": {1, 64}, "sum": {1, 64},
	"prod": {1, 64}, "pow": {2, 2}, "strictfloor": {1, 1}, "strictceil": {1, 1},
}

// ParseFormula parses a metric formula such as "$512" or
// "sqrt(($1024/$256)-(($512*$512)/($256*$256)))".
func ParseFormula(s string) (*Expr, error) {
	p := &formulaParser{s: s}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i < len(p.s) {
		return nil, p.fail("unexpected text")
	}
	return e, nil
}

type formulaParser struct {
	s     string
	i     int
	depth int
}

func (p *formulaParser) fail(msg string) error {
	return decode.ErrAt(format, "metric formula", int64(p.i), msg, p.s, nil)
}

func (p *formulaParser) skip() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

func prec(op byte) int {
	switch op {
	case '+', '-':
		return 1
	case '*', '/':
		return 2
	case '^':
		return 3
	}
	return -1
}

func (p *formulaParser) expr(minPrec int) (*Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 200 {
		return nil, p.fail("formula nested too deeply")
	}
	lhs, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		p.skip()
		if p.i >= len(p.s) {
			return lhs, nil
		}
		op := p.s[p.i]
		pr := prec(op)
		if pr < 0 || pr < minPrec {
			return lhs, nil
		}
		p.i++
		next := pr + 1
		if op == '^' {
			next = pr // right-associative
		}
		rhs, err := p.expr(next)
		if err != nil {
			return nil, err
		}
		lhs = &Expr{op: op, args: []*Expr{lhs, rhs}}
	}
}

func (p *formulaParser) unary() (*Expr, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, p.fail("formula ends early")
	}
	c := p.s[p.i]
	switch {
	case c == '-':
		p.i++
		a, err := p.expr(3)
		if err != nil {
			return nil, err
		}
		return &Expr{op: 'u', args: []*Expr{a}}, nil
	case c == '+':
		p.i++
		return p.expr(3)
	case c == '(':
		p.i++
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		p.skip()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, p.fail("missing )")
		}
		p.i++
		return e, nil
	case c == '$' || c == '#' || c == '@':
		p.i++
		j := p.i
		if j < len(p.s) && p.s[j] == '-' {
			p.i++
		}
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		id, err := strconv.Atoi(p.s[j:p.i])
		if err != nil {
			return nil, p.fail("bad metric reference")
		}
		return &Expr{op: '$', id: id}, nil
	case c >= '0' && c <= '9' || c == '.':
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.' || p.s[p.i] == 'e' || p.s[p.i] == 'E' ||
			(p.s[p.i] == '-' || p.s[p.i] == '+') && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E')) {
			p.i++
		}
		v, err := strconv.ParseFloat(p.s[j:p.i], 64)
		if err != nil {
			return nil, p.fail("bad number")
		}
		return &Expr{op: 'n', num: v}, nil
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z') {
			p.i++
		}
		name := strings.ToLower(p.s[j:p.i])
		ar, ok := arity[name]
		if !ok {
			p.i = j
			return nil, p.fail("unknown function " + name)
		}
		p.skip()
		if p.i >= len(p.s) || p.s[p.i] != '(' {
			return nil, p.fail("missing ( after " + name)
		}
		p.i++
		e := &Expr{op: 'f', fn: name}
		for {
			a, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			e.args = append(e.args, a)
			p.skip()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ')' {
				p.i++
				break
			}
			return nil, p.fail("missing ) after arguments of " + name)
		}
		if len(e.args) < ar[0] || len(e.args) > ar[1] {
			return nil, p.fail("wrong number of arguments to " + name)
		}
		return e, nil
	}
	return nil, p.fail("unexpected character")
}
