// Package callgrind generates synthetic callgrind profiles shaped like
// valgrind's: name and subposition compression, fl=/fi=/fe= switches,
// cob=/cfi=/cfn= calls with their inclusive costs, optional instruction
// addresses and jumps, and a totals: line that equals the sum of all self
// cost lines. The same Config always gives the same bytes.
package callgrind

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"strconv"
)

// Config describes a profile.
type Config struct {
	Seed       int64
	Functions  int   // distinct functions (default 8)
	Records    int   // function blocks to write (default 100); ignored when Size > 0
	Size       int64 // write blocks until the output reaches this many bytes
	Events     int   // events per cost line (default 1)
	Instr      bool  // positions: instr line
	Jumps      bool  // jump=/jcnd= lines (needs Instr to look like valgrind's)
	Inline     bool  // fi=/fe= blocks of inlined code
	NoCompress bool  // names written out every time
}

func (c Config) withDefaults() Config {
	if c.Functions <= 0 {
		c.Functions = 8
	}
	if c.Records <= 0 {
		c.Records = 100
	}
	if c.Events <= 0 {
		c.Events = 1
	}
	return c
}

// Bytes returns the whole profile.
func Bytes(c Config) []byte {
	var b bytes.Buffer
	Write(&b, c)
	return b.Bytes()
}

// Write writes the profile to w and returns the bytes written.
func Write(w io.Writer, c Config) (int64, error) {
	c = c.withDefaults()
	g := &writer{c: c, rnd: rand.New(rand.NewSource(c.Seed)), bw: bufio.NewWriterSize(w, 1<<20),
		defined: map[string]bool{}, ids: map[string]int{}}
	g.totals = make([]uint64, c.Events)
	g.header()
	for i := 0; ; i++ {
		if c.Size > 0 {
			if g.n >= c.Size {
				break
			}
		} else if i >= c.Records {
			break
		}
		g.block()
	}
	g.printf("\ntotals:")
	for _, t := range g.totals {
		g.printf(" %d", t)
	}
	g.printf("\n")
	err := g.bw.Flush()
	return g.n, err
}

type writer struct {
	c       Config
	rnd     *rand.Rand
	bw      *bufio.Writer
	n       int64
	defined map[string]bool
	ids     map[string]int
	nextID  [3]int
	totals  []uint64
	buf     []byte

	lastFile string // the current fl= file
	lastObj  string
	instr    uint64
	line     int64
}

func (g *writer) printf(format string, a ...any) {
	k, _ := fmt.Fprintf(g.bw, format, a...)
	g.n += int64(k)
}

func (g *writer) write(b []byte) {
	k, _ := g.bw.Write(b)
	g.n += int64(k)
}

func (g *writer) header() {
	g.printf("# callgrind format\nversion: 1\ncreator: hpcfs-gen\npid: 4242\ncmd:  ./synthetic --seed %d\npart: 1\n\n", g.c.Seed)
	if g.c.Instr {
		g.printf("positions: instr line\n")
	} else {
		g.printf("positions: line\n")
	}
	g.printf("event: E0 : Synthetic event zero\nevents:")
	for k := 0; k < g.c.Events; k++ {
		g.printf(" E%d", k)
	}
	g.printf("\n\n")
}

func (g *writer) fnName(i int) string   { return "fn_" + strconv.Itoa(i) }
func (g *writer) fileName(i int) string { return "src/file_" + strconv.Itoa(i%7) + ".c" }
func (g *writer) objName(i int) string  { return "/lib/obj_" + strconv.Itoa(i%3) + ".so" }

// name writes a position name, compressed unless NoCompress.
func (g *writer) name(kind int, spec, name string) {
	if g.c.NoCompress {
		g.printf("%s=%s\n", spec, name)
		return
	}
	k := strconv.Itoa(kind) + name
	if g.defined[k] {
		g.printf("%s=(%d)\n", spec, g.ids[k])
		return
	}
	g.nextID[kind]++
	g.ids[k] = g.nextID[kind]
	g.defined[k] = true
	g.printf("%s=(%d) %s\n", spec, g.ids[k], name)
}

// pos writes the subpositions of a cost line, compressed against the last.
func (g *writer) pos(instr uint64, line int64) {
	b := g.buf[:0]
	if g.c.Instr {
		b = relative(b, int64(instr), int64(g.instr), true)
		b = append(b, ' ')
		g.instr = instr
	}
	b = relative(b, line, g.line, false)
	g.line = line
	g.write(b)
	g.buf = b
}

func relative(b []byte, v, base int64, hex bool) []byte {
	switch d := v - base; {
	case d == 0:
		return append(b, '*')
	case d > 0 && d < 64:
		return strconv.AppendInt(append(b, '+'), d, 10)
	case d < 0 && d > -64:
		return strconv.AppendInt(append(b, '-'), -d, 10)
	case hex:
		return strconv.AppendUint(append(b, '0', 'x'), uint64(v), 16)
	}
	return strconv.AppendInt(b, v, 10)
}

func (g *writer) costs(self bool, scale int) {
	b := g.buf[:0]
	for k := 0; k < g.c.Events; k++ {
		v := uint64(g.rnd.Intn(scale*(k+1)) + 1)
		if self {
			g.totals[k] += v
		}
		b = append(b, ' ')
		b = strconv.AppendUint(b, v, 10)
	}
	b = append(b, '\n')
	g.write(b)
	g.buf = b
}

func (g *writer) block() {
	f := g.rnd.Intn(g.c.Functions)
	g.write([]byte{'\n'})
	// Like valgrind: ob= and fl= only when they change.
	if g.objName(f) != g.lastObj {
		g.name(0, "ob", g.objName(f))
		g.lastObj = g.objName(f)
	}
	if g.fileName(f) != g.lastFile {
		g.name(1, "fl", g.fileName(f))
		g.lastFile = g.fileName(f)
	}
	g.name(2, "fn", g.fnName(f))
	base := int64(10 + 20*f)
	addr := uint64(0x400000 + 0x100*f)
	// valgrind's blocks hold ~25 lines, ~7% of them calls.
	n := 1 + g.rnd.Intn(48)
	for k := 0; k < n; k++ {
		line := base + int64(g.rnd.Intn(12))
		addr += uint64(g.rnd.Intn(8))
		switch r := g.rnd.Intn(28); {
		case r < 2 && g.c.Functions > 1:
			// A static call graph: each function calls three others, each
			// from its own line.
			slot := g.rnd.Intn(3)
			callee := (f*7 + 1 + slot*13) % g.c.Functions
			line = base + int64(slot)
			if g.objName(callee) != g.objName(f) {
				g.name(0, "cob", g.objName(callee))
			}
			if g.fileName(callee) != g.fileName(f) {
				g.name(1, "cfi", g.fileName(callee))
			}
			g.name(2, "cfn", g.fnName(callee))
			g.printf("calls=%d %d\n", 1+g.rnd.Intn(5), 10+20*callee)
			g.pos(addr, line)
			g.costs(false, 5000)
		case r == 2 && g.c.Inline:
			g.name(1, "fi", "include/inline_"+strconv.Itoa(f%4)+".h")
			g.pos(addr, int64(g.rnd.Intn(40)+1))
			g.costs(true, 50)
			g.name(1, "fe", g.fileName(f))
		case r == 3 && g.c.Jumps:
			if g.rnd.Intn(2) == 0 {
				g.printf("jump=%d %s\n", 1+g.rnd.Intn(9), "+4 *")
			} else {
				g.printf("jcnd=%d/%d %s\n", g.rnd.Intn(5), 5+g.rnd.Intn(5), "-2 +1")
			}
			g.pos(addr, line)
			g.write([]byte{'\n'})
		default:
			g.pos(addr, line)
			g.costs(true, 100)
		}
	}
}
