package hpcdb

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// An Experiment is the decoded experiment.xml (version 4.0).
type Experiment struct {
	Version     string // HPCToolkitExperiment version attribute
	Title       string // Header n
	IDNames     []IDName
	Metrics     []Metric
	MetricDBs   []MetricDB
	TraceDBs    []TraceTime
	Modules     []Entity // LoadModuleTable
	Files       []Entity // FileTable
	Procedures  []Procedure
	Nodes       []Node // the calling-context tree in document order; Nodes[0] is the root
	MaxCtx      int64  // largest context id (|i|) in the tree
	TreeOffset  int64  // byte offset of SecCallPathProfileData
	HasIDNames  bool
	HasTraceTbl bool
	// Problems are what was wrong but read anyway (NUL bytes in
	// attribute values, replaced by U+FFFD); at most maxProblems.
	Problems []error
}

// maxProblems bounds Experiment.Problems.
const maxProblems = 20

// An IDName maps an identifier kind to its name.
type IDName struct {
	Kind uint16
	Name string
}

// A Metric is one entry of the MetricTable.
type Metric struct {
	ID          int
	Order       int
	Name        string
	Desc        string // md
	Value       string // v
	Type        string // t: inclusive, exclusive
	Partner     int
	HasPartner  bool
	Show        int
	ShowPercent bool
	Format      string // fmt
	Formulas    []Formula
	Units       string
}

// Formula returns the metric's formula of type t ("view", "combine"), or "".
func (m *Metric) Formula(t string) string {
	for _, f := range m.Formulas {
		if f.Type == t {
			return f.Frm
		}
	}
	return ""
}

// A Formula is one MetricFormula of a Metric.
type Formula struct{ Type, Frm string }

// A MetricDB is one entry of the MetricDBTable: a raw per-thread metric id.
type MetricDB struct {
	ID   int
	Name string
}

// A TraceTime is the TraceDBTable entry: the time range of all traces.
type TraceTime struct {
	ID               int
	MinTime, MaxTime uint64
	Units            uint64
}

// An Entity is a load module or a file.
type Entity struct {
	ID   int64
	Name string
}

// A Procedure is one entry of the ProcedureTable.
type Procedure struct {
	ID   int64
	Name string
	Addr string
	Fake bool
}

// NodeKind is the tag of a calling-context node.
type NodeKind uint8

const (
	NodeRoot  NodeKind = iota // SecCallPathProfileData, context 0
	NodePF                    // procedure frame
	NodeC                     // call site
	NodeS                     // statement (line)
	NodeL                     // loop
	NodeEntry                 // entry point (meta.db generation)
	NodeInstr                 // single instruction (meta.db generation)
)

func (k NodeKind) String() string {
	return [...]string{"root", "procedure", "callsite", "line", "loop", "entry", "instruction"}[k]
}

// A Node is one tag of the calling-context tree.
type Node struct {
	Kind   NodeKind
	Parent int32 // index in Nodes; -1 for the root
	ID     int64 // i (negative for a companion of context -i)
	It     int64 // it; 0 when absent
	Proc   int64 // n: ProcedureTable id (PF); -1 when absent
	File   int64 // f; -1 when absent
	Line   int64 // l
	Module int64 // lm; -1 when absent
	Addr   uint64

	// meta.db generation
	Rel   uint8  // relation to the parent (RelLexical, RelCall, RelInlined, RelEntry)
	Lex   uint8  // lexical type (LexFunction ... LexEntry)
	Flags uint8  // hasFunction, hasSrcLoc, hasPoint
	Prop  uint16 // propagation bitmask
}

// countContextTags estimates the context tags in b, so that the node list
// is made once at its size instead of growing by append (which holds the
// old and the new array at once: the peak of a database's build). It is at
// most one tag per 32 bytes of file (HPCToolkit writes ~70), so that a file
// of bare tags cannot make it allocate more than about twice its size; a
// denser tree grows by append.
func countContextTags(b []byte) int {
	n := 0
	for _, tag := range []string{"<PF ", "<Pr ", "<A ", "<C ", "<S ", "<L "} {
		n += bytes.Count(b, []byte(tag))
	}
	return min(n, len(b)/32)
}

// OpenExperiment parses the experiment.xml at path.
func OpenExperiment(path string) (*Experiment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseExperiment(b)
}

// ParseExperiment parses experiment.xml held in b.
func ParseExperiment(b []byte) (*Experiment, error) {
	p := &xmlParser{b: b, x: &Experiment{}}
	err := p.parse()
	if err == nil {
		err = p.finish()
	}
	return p.x, err
}

// The tokenizer below (parse and startTag) is ours rather than
// encoding/xml's for three reasons: an error names the byte offset of the
// damage (encoding/xml gives a line), a cut or damaged file still yields
// every element before the damage (encoding/xml stops at its first
// complaint, including on text the views never use), and it reads the
// attributes in place without allocating a token per element. It reads
// the subset of XML that experiment.xml uses: elements, attributes,
// comments, processing instructions and declarations (text is skipped).
// FuzzTokenizer checks that on every input encoding/xml accepts it finds
// the same elements and attribute values.

type xmlParser struct {
	b      []byte
	pos    int
	x      *Experiment
	stack  []string
	nodes  []int32 // open CCT node indexes
	attrs  []attr
	tagOff int // byte offset of the current start tag
	// current metric being filled
	metric *Metric
	inTree bool
	sawTop bool
	// record, when set, receives each start (with its attributes) and end
	// tag instead of the Experiment builder: FuzzTokenizer's hook.
	record func(start bool, name string, attrs []attr)
}

type attr struct {
	name string
	val  []byte // raw, entity-escaped
}

func (p *xmlParser) fail(off int, msg string, val any) error {
	return decode.ErrAt(format, "experiment.xml", int64(off), msg, val, nil)
}

func (p *xmlParser) truncated(off int, msg string) error {
	return decode.ErrAt(format, "experiment.xml", int64(off), msg, nil, decode.ErrTruncated)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNameChar(c byte) bool {
	return c == '-' || c == '_' || c == ':' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func (p *xmlParser) parse() error {
	b := p.b
	for {
		i := bytes.IndexByte(b[p.pos:], '<')
		if i < 0 {
			break
		}
		p.pos += i
		start := p.pos
		rest := b[p.pos:]
		switch {
		case bytes.HasPrefix(rest, []byte("<?")):
			j := bytes.Index(rest, []byte("?>"))
			if j < 0 {
				return p.truncated(start, "unterminated processing instruction")
			}
			p.pos += j + 2
		case bytes.HasPrefix(rest, []byte("<!--")):
			j := bytes.Index(rest[4:], []byte("-->"))
			if j < 0 {
				return p.truncated(start, "unterminated comment")
			}
			p.pos += 4 + j + 3
		case bytes.HasPrefix(rest, []byte("<!")):
			j := bytes.IndexByte(rest, '>')
			if j < 0 {
				return p.truncated(start, "unterminated declaration")
			}
			p.pos += j + 1
		case bytes.HasPrefix(rest, []byte("</")):
			k := 2
			for k < len(rest) && isNameChar(rest[k]) {
				k++
			}
			name := string(rest[2:k])
			for k < len(rest) && isSpace(rest[k]) {
				k++
			}
			if k >= len(rest) {
				return p.truncated(start, "unterminated end tag")
			}
			if rest[k] != '>' {
				return p.fail(start+k, "bad end tag", name)
			}
			p.pos += k + 1
			if err := p.onEnd(start, name); err != nil {
				return err
			}
		default:
			name, selfClose, err := p.startTag()
			if err != nil {
				return err
			}
			if err := p.onStart(start, name); err != nil {
				return err
			}
			if selfClose {
				if err := p.onEnd(start, name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (p *xmlParser) onStart(off int, name string) error {
	if p.record != nil {
		p.record(true, name, p.attrs)
		return nil
	}
	return p.start(off, name)
}

func (p *xmlParser) onEnd(off int, name string) error {
	if p.record != nil {
		p.record(false, name, nil)
		return nil
	}
	return p.end(off, name)
}

// finish checks the document as a whole once every tag was read.
func (p *xmlParser) finish() error {
	b := p.b
	if len(p.stack) > 0 {
		return p.truncated(len(b), "document ends inside <"+p.stack[len(p.stack)-1]+">")
	}
	if !p.sawTop {
		return p.fail(0, "no HPCToolkitExperiment element", nil)
	}
	return nil
}

// startTag scans "<name attr="v" ...>" at p.pos into p.attrs.
func (p *xmlParser) startTag() (string, bool, error) {
	b := p.b
	start := p.pos
	k := p.pos + 1
	for k < len(b) && isNameChar(b[k]) {
		k++
	}
	if k == p.pos+1 {
		return "", false, p.fail(start, "bad tag", nil)
	}
	name := string(b[p.pos+1 : k])
	p.attrs = p.attrs[:0]
	p.tagOff = start
	for {
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k >= len(b) {
			return "", false, p.truncated(start, "unterminated tag <"+name+">")
		}
		switch b[k] {
		case '>':
			p.pos = k + 1
			return name, false, nil
		case '/':
			if k+1 < len(b) && b[k+1] == '>' {
				p.pos = k + 2
				return name, true, nil
			}
			return "", false, p.fail(k, "bad tag", name)
		}
		a := k
		for k < len(b) && isNameChar(b[k]) {
			k++
		}
		if a == k {
			return "", false, p.fail(k, "bad attribute in <"+name+">", string(b[k]))
		}
		an := string(b[a:k])
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k >= len(b) {
			return "", false, p.truncated(start, "unterminated tag <"+name+">")
		}
		if b[k] != '=' {
			return "", false, p.fail(k, "attribute without value", an)
		}
		k++
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k >= len(b) {
			return "", false, p.truncated(start, "unterminated tag <"+name+">")
		}
		q := b[k]
		if q != '"' && q != '\'' {
			return "", false, p.fail(k, "unquoted attribute value", an)
		}
		e := bytes.IndexByte(b[k+1:], q)
		if e < 0 {
			return "", false, p.truncated(k, "unterminated attribute value")
		}
		p.attrs = append(p.attrs, attr{an, b[k+1 : k+1+e]})
		k += e + 2
	}
}

func (p *xmlParser) get(name string) ([]byte, bool) {
	for _, a := range p.attrs {
		if a.name == name {
			return a.val, true
		}
	}
	return nil, false
}

// str is an attribute's text. A NUL (raw or &#0;) has no place in XML
// text nor in the CSVs made from it: it becomes U+FFFD, and a problem.
func (p *xmlParser) str(name string) string {
	v, _ := p.get(name)
	s := unescape(v)
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
		if len(p.x.Problems) < maxProblems {
			p.x.Problems = append(p.x.Problems, p.fail(p.tagOff, "NUL byte in attribute "+name+" (shown as U+FFFD)", s))
		}
	}
	return s
}

func (p *xmlParser) num(off int, name string, def int64) (int64, error) {
	v, ok := p.get(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return def, p.fail(off, "bad number in attribute "+name, string(v))
	}
	return n, nil
}

func (p *xmlParser) unum(off int, name string) (uint64, error) {
	v, ok := p.get(name)
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, p.fail(off, "bad number in attribute "+name, string(v))
	}
	return n, nil
}

func (p *xmlParser) addr(off int, name string) (uint64, error) {
	v, ok := p.get(name)
	if !ok {
		return 0, nil
	}
	s := string(v)
	base := 10
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s, base = s[2:], 16
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, p.fail(off, "bad address in attribute "+name, string(v))
	}
	return n, nil
}

func unescape(v []byte) string {
	if bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	var sb strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '&' {
			sb.WriteByte(v[i])
			continue
		}
		j := bytes.IndexByte(v[i:], ';')
		if j < 0 {
			sb.Write(v[i:])
			break
		}
		ent := string(v[i+1 : i+j])
		switch {
		case ent == "lt":
			sb.WriteByte('<')
		case ent == "gt":
			sb.WriteByte('>')
		case ent == "amp":
			sb.WriteByte('&')
		case ent == "quot":
			sb.WriteByte('"')
		case ent == "apos":
			sb.WriteByte('\'')
		case strings.HasPrefix(ent, "#"):
			var n uint64
			var err error
			if strings.HasPrefix(ent, "#x") {
				n, err = strconv.ParseUint(ent[2:], 16, 32)
			} else {
				n, err = strconv.ParseUint(ent[1:], 10, 32)
			}
			if err != nil {
				sb.Write(v[i : i+j+1])
			} else {
				sb.WriteRune(rune(n))
			}
		default:
			sb.Write(v[i : i+j+1])
		}
		i += j
	}
	return sb.String()
}

func (p *xmlParser) parent() string {
	if len(p.stack) == 0 {
		return ""
	}
	return p.stack[len(p.stack)-1]
}

func (p *xmlParser) start(off int, name string) error {
	x := p.x
	parent := p.parent()
	p.stack = append(p.stack, name)
	switch name {
	case "HPCToolkitExperiment":
		p.sawTop = true
		x.Version = p.str("version")
	case "Header":
		if parent == "HPCToolkitExperiment" {
			x.Title = p.str("n")
		}
	case "IdentifierNameTable":
		x.HasIDNames = true
	case "Identifier":
		k, err := p.num(off, "i", 0)
		if err != nil {
			return err
		}
		x.IDNames = append(x.IDNames, IDName{uint16(k), p.str("n")})
	case "Metric":
		var m Metric
		var err error
		id, err := p.num(off, "i", 0)
		if err != nil {
			return err
		}
		o, err := p.num(off, "o", id)
		if err != nil {
			return err
		}
		m.ID, m.Order = int(id), int(o)
		m.Name, m.Desc, m.Value, m.Type = p.str("n"), p.str("md"), p.str("v"), p.str("t")
		if _, ok := p.get("partner"); ok {
			pa, err := p.num(off, "partner", 0)
			if err != nil {
				return err
			}
			m.Partner, m.HasPartner = int(pa), true
		}
		show, err := p.num(off, "show", 1)
		if err != nil {
			return err
		}
		m.Show = int(show)
		m.ShowPercent = p.str("show-percent") == "1"
		m.Format = p.str("fmt")
		x.Metrics = append(x.Metrics, m)
		p.metric = &x.Metrics[len(x.Metrics)-1]
	case "MetricFormula":
		if p.metric != nil && parent == "Metric" {
			p.metric.Formulas = append(p.metric.Formulas, Formula{p.str("t"), p.str("frm")})
		}
	case "NV":
		if p.metric != nil && p.str("n") == "units" {
			p.metric.Units = p.str("v")
		}
	case "MetricDB":
		id, err := p.num(off, "i", 0)
		if err != nil {
			return err
		}
		x.MetricDBs = append(x.MetricDBs, MetricDB{int(id), p.str("n")})
	case "TraceDBTable":
		x.HasTraceTbl = true
	case "TraceDB":
		id, err := p.num(off, "i", 0)
		if err != nil {
			return err
		}
		var t TraceTime
		t.ID = int(id)
		if t.MinTime, err = p.unum(off, "db-min-time"); err != nil {
			return err
		}
		if t.MaxTime, err = p.unum(off, "db-max-time"); err != nil {
			return err
		}
		if t.Units, err = p.unum(off, "u"); err != nil {
			return err
		}
		x.TraceDBs = append(x.TraceDBs, t)
	case "LoadModule", "File":
		if p.inTree {
			break
		}
		id, err := p.num(off, "i", 0)
		if err != nil {
			return err
		}
		e := Entity{id, p.str("n")}
		if name == "File" {
			x.Files = append(x.Files, e)
		} else {
			x.Modules = append(x.Modules, e)
		}
	case "Procedure":
		id, err := p.num(off, "i", 0)
		if err != nil {
			return err
		}
		x.Procedures = append(x.Procedures, Procedure{id, p.str("n"), p.str("v"), p.str("f") == "1"})
	case "SecCallPathProfileData":
		if len(x.Nodes) > 0 { // a second tree: the file has text appended or repeated
			return p.fail(off, "a second SecCallPathProfileData", nil)
		}
		p.inTree = true
		x.TreeOffset = int64(off)
		if x.Nodes == nil {
			x.Nodes = make([]Node, 0, 1+countContextTags(p.b[off:]))
		}
		x.Nodes = append(x.Nodes, Node{Kind: NodeRoot, Parent: -1, Proc: -1, File: -1, Module: -1})
		p.nodes = append(p.nodes[:0], 0)
	case "PF", "C", "S", "L", "Pr", "A":
		if !p.inTree || len(p.nodes) == 0 {
			return p.fail(off, "context tag outside SecCallPathProfileData", name)
		}
		n := Node{Parent: p.nodes[len(p.nodes)-1]}
		switch name {
		case "PF", "Pr", "A":
			n.Kind = NodePF
		case "C":
			n.Kind = NodeC
		case "S":
			n.Kind = NodeS
		case "L":
			n.Kind = NodeL
		}
		var err error
		if n.ID, err = p.num(off, "i", 0); err != nil {
			return err
		}
		if n.It, err = p.num(off, "it", 0); err != nil {
			return err
		}
		if n.Proc, err = p.num(off, "n", -1); err != nil {
			return err
		}
		if _, err = p.num(off, "s", -1); err != nil { // s is checked, not kept
			return err
		}
		if n.File, err = p.num(off, "f", -1); err != nil {
			return err
		}
		if n.Line, err = p.num(off, "l", 0); err != nil {
			return err
		}
		if n.Module, err = p.num(off, "lm", -1); err != nil {
			return err
		}
		if n.Addr, err = p.addr(off, "v"); err != nil {
			return err
		}
		if n.ID == 0 || n.ID == -1<<63 {
			return p.fail(off, "context tag without id", name)
		}
		if a := max(n.ID, -n.ID); a > x.MaxCtx {
			x.MaxCtx = a
		}
		x.Nodes = append(x.Nodes, n)
		p.nodes = append(p.nodes, int32(len(x.Nodes)-1))
	}
	return nil
}

func (p *xmlParser) end(off int, name string) error {
	if len(p.stack) == 0 || p.stack[len(p.stack)-1] != name {
		want := ""
		if len(p.stack) > 0 {
			want = p.stack[len(p.stack)-1]
		}
		return p.fail(off, "mismatched end tag </"+name+">, open element", want)
	}
	p.stack = p.stack[:len(p.stack)-1]
	switch name {
	case "Metric":
		p.metric = nil
	case "SecCallPathProfileData":
		p.inTree = false
		p.nodes = p.nodes[:0]
	case "PF", "C", "S", "L", "Pr", "A":
		if p.inTree && len(p.nodes) > 1 {
			p.nodes = p.nodes[:len(p.nodes)-1]
		}
	}
	return nil
}
