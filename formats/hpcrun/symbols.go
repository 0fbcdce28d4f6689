package hpcrun

import (
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// frames gives the source frames at ip in load module lmID of e,
// innermost first (nil when the binary or its symbols are missing: the
// reason goes to _errors.txt once per module). A call's ip (a node with
// children) is a return address, looked up at ip-1 as hpcprof does.
func (m *mount) frames(e *hpcrun.Epoch, lmID uint16, ip uint64, call bool) []symbols.Frame {
	return m.framesIn(m.module(e, lmID), ip, call)
}

// framesIn is frames in the symbols module mod (nil: none).
func (m *mount) framesIn(mod *symbols.Module, ip uint64, call bool) []symbols.Frame {
	if mod == nil {
		return nil
	}
	if call && ip > 0 {
		ip--
	}
	return mod.Frames(ip, m.symErr)
}

// module is the symbols module of load module lmID of e, its binary
// compared with the measurement once (nil for the root, id 0, or an id
// the epoch does not list).
func (m *mount) module(e *hpcrun.Epoch, lmID uint16) *symbols.Module {
	if lmID == 0 {
		return nil
	}
	lm := e.LoadModule(lmID)
	if lm == nil {
		return nil
	}
	mod := m.resolver().Module(lm.Name)
	if _, done := m.compared.LoadOrStore(lm.Name, true); !done {
		m.compareBinary(mod)
	}
	return mod
}

// A moduleCache keeps the symbols modules of one epoch's load modules
// for a view's scanner, so that a row finds its frame's module without
// the resolver's lock and map and the compared set (10-15% of cct.csv's
// CPU when every row asked them). Ids from maxCachedModule on (none in
// real profiles) are looked up each time.
type moduleCache struct {
	e    *hpcrun.Epoch
	mods []*symbols.Module // by load module id
	seen []bool            // mods[id] is known (nil: no module)
}

const maxCachedModule = 4096

func (c *moduleCache) module(m *mount, e *hpcrun.Epoch, lmID uint16) *symbols.Module {
	if c.e != e {
		c.e, c.mods, c.seen = e, c.mods[:0], c.seen[:0]
	}
	id := int(lmID)
	if id >= maxCachedModule {
		return m.module(e, lmID)
	}
	if id >= len(c.mods) {
		c.mods = append(c.mods, make([]*symbols.Module, id+1-len(c.mods))...)
		c.seen = append(c.seen, make([]bool, id+1-len(c.seen))...)
	}
	if !c.seen[id] {
		c.mods[id], c.seen[id] = m.module(e, lmID), true
	}
	return c.mods[id]
}

// compareBinary reports, once per module, a binary modified after the
// measurement (after the newest profile file of the mount was written):
// hpcrun records no build-id, so a rebuilt binary could name the
// addresses wrongly. Its names are still given.
func (m *mount) compareBinary(mod *symbols.Module) {
	var written time.Time
	for _, p := range m.profiles {
		if fi, err := os.Stat(p.path); err == nil && fi.ModTime().After(written) {
			written = fi.ModTime()
		}
	}
	if _, newer := mod.Compare(symbols.Measured{When: written}); newer != nil {
		m.symErr(fmt.Errorf("symbols of %s: %v", mod.Recorded, newer))
	}
}

// appendFrame appends " function (file:line)" of the innermost frame at
// a node, for the text views; nothing when it is unknown.
func (m *mount) appendFrame(dst []byte, e *hpcrun.Epoch, lmID uint16, ip uint64, call bool) []byte {
	if fs := m.frames(e, lmID, ip, call); len(fs) > 0 && fs[0].Function != "" {
		dst = append(dst, ' ')
		dst = symbols.AppendFrame(dst, fs[0])
	}
	return dst
}

// child adds the frames of a node under parent of t: its function and
// the functions inlined in it at ip, outermost first, when the binary's
// symbols are found, else one frame named module+0xip. It gives the
// innermost frame's node.
func (m *mount) child(t *interchange.Tree, parent int32, e *hpcrun.Epoch, lmID uint16, ip uint64, call bool, name []byte) int32 {
	module := ""
	if lm := e.LoadModule(lmID); lm != nil && lmID != 0 {
		module = lm.Name
	}
	fs := m.frames(e, lmID, ip, call)
	if len(fs) == 0 || fs[len(fs)-1].Function == "" {
		return t.Child(parent, interchange.Frame{Name: string(appendLocation(name[:0], e, lmID, ip)), Addr: ip, Module: module})
	}
	for i := len(fs) - 1; i >= 0; i-- {
		f := fs[i]
		parent = t.Child(parent, interchange.Frame{Name: f.Function, File: f.File, Line: int64(f.Line), Module: module, Addr: ip})
	}
	return parent
}

// moduleNames are the load module paths of the mount's profiles that
// are files (not the synthetic root or placeholders), sorted.
func (m *mount) moduleNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range m.profiles {
		f, err := p.open()
		if err != nil {
			continue
		}
		for _, e := range f.Epochs {
			for _, lm := range e.LoadModules {
				if lm.ID != 0 && !seen[lm.Name] {
					seen[lm.Name] = true
					out = append(out, lm.Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// symbolFiles are the binaries found for the profile's load modules:
// inputs of the views that show their names (index keys).
func (p *profile) symbolFiles() []string {
	f, err := p.open()
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range f.Epochs {
		for _, lm := range e.LoadModules {
			if file, err := p.m.resolver().Module(lm.Name).File(); err == nil && lm.ID != 0 {
				out = append(out, file)
			}
		}
	}
	return out
}

// resolver finds the binaries of the load modules: under the mount's
// Options.SymbolDirs, which the tree is bound with before any view renders.
func (m *mount) resolver() *symbols.Resolver {
	m.symsOnce.Do(func() { m.syms = symbols.For(m.src.Options) })
	return m.syms
}

// frameColumns are the columns of a frame in cct.csv and trace.csv: its
// load module, offset and the symbols at it; frameCells fills them.
var frameColumns = append([]render.Column{
	{Name: "module_id", Kind: render.Uint},
	{Name: "module"},
	{Name: "offset", Kind: render.Hex},
}, symbols.Columns...)

// frameCells adds the frameColumns cells of the frame at ip in load
// module lm of epoch e (names: the epoch's module names; call: ip is a
// return address; mods: the scanner's modules). A 04.00 placeholder (module 0 of a sparse epoch) is
// named by the id stored in its ip.
func (p *profile) frameCells(row *render.Row, mods *moduleCache, e *hpcrun.Epoch, names []render.Text, lm uint16, ip uint64, call bool) {
	row.Uint(uint64(lm))
	switch {
	case lm == 0 && e != nil && e.Sparse:
		row.Str(hpcrun.PlaceholderName(ip))
	case int(lm) < len(names):
		row.Text(&names[lm]) // its CSV field made once
	default:
		row.Empty()
	}
	row.Uint(ip)
	symbols.Cells(row, p.m.framesIn(mods.module(p.m, e, lm), ip, call))
}
