package vfs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"

	"github.com/hpcfs/hpcfs/render"
)

// A place is where a directory sits in a bound tree: the source it
// belongs to (the innermost one, in a folder of sources) and its path
// below that source's root ("" for the root).
type place struct {
	src  *Source
	path string
}

// bind binds the node called name in the directory at p: a file's view
// learns its identity (render.Binding), a directory its place, and so on
// down every entry that exists already (Lazy and Indexed directories bind
// their entries as they make them). A nil place binds nothing.
func (p *place) bind(n Node, name string) {
	if p == nil {
		return
	}
	rel := name
	if p.path != "" {
		rel = p.path + "/" + name
	}
	switch n := n.(type) {
	case *File:
		if b, ok := n.View.(render.Binder); ok {
			b.Bind(p.src.binding(rel))
		}
	case *Dir:
		n.bindAt(p.src, rel)
	}
}

// bindAt places d at rel in src (or at the root of its own source, when d
// is one) and binds the entries it has.
func (d *Dir) bindAt(src *Source, rel string) {
	if d.src != nil && d.src != src {
		d.src.Options = src.Options
		src, rel = d.src, ""
	}
	d.mu.Lock()
	if d.at != nil {
		d.mu.Unlock()
		return
	}
	d.at = &place{src, rel}
	entries := d.entries
	if d.lazy == nil && d.indexed == nil && d.lazyIndexed == nil {
		entries = append([]Entry(nil), entries...)
	}
	d.mu.Unlock()
	for _, e := range entries {
		d.at.bind(e.Node, e.Name)
	}
}

// bind binds the source's tree, once, with its Options: every view below
// it learns its index key and error location from its path (render.Binder).
func (s *Source) bind() {
	s.bindOnce.Do(func() {
		s.Root.bindAt(s, "")
	})
}

// binding is the render.Binding of the view at rel: the source's options;
// an index key made of the format, the view's path, the identity of the
// source's input files and the options that change what views hold; and
// a report into the source's _errors.txt naming rel.
func (s *Source) binding(rel string) render.Binding {
	b := render.Binding{Options: s.Options, Report: s.Errors.Reporter(rel)}
	if id := s.identity(); id != "" {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", id, s.Options.WindowLimit, rel)))
		b.Key = path.Join(s.Format, rel) + "/" + hex.EncodeToString(sum[:])
	}
	return b
}

// identity digests the identity of the source's input files (those Watch
// recorded, else those NewSource found); "" when none could be identified.
func (s *Source) identity() string {
	s.idOnce.Do(func() {
		in := s.Root.inputs
		if in == nil {
			in = s.found
		}
		s.id = in.digest()
	})
	return s.id
}
