package symbols

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hpcfs/hpcfs/render"
)

// Readme is the README.txt section that says where the names of each
// module (recorded paths) come from, at most 100 columns wide; "" for
// no modules.
func (r *Resolver) Readme(modules []string) string {
	if len(modules) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nSymbols of each load module (from DWARF, the ELF symbol table or a separate debug\n")
	b.WriteString("file; binaries at the recorded path or by base name under --symbols / $HPCFS_SYMBOLS):\n")
	// Modules with the same answer (most often: not found) share it.
	var order []string
	names := map[string][]string{}
	for _, n := range modules {
		d := r.Module(n).Describe()
		if names[d] == nil {
			order = append(order, d)
		}
		names[d] = append(names[d], render.EscapeName(path.Base(n)))
	}
	for _, d := range order {
		wrap(&b, strings.Join(names[d], ", "), "  ", 100)
		wrap(&b, render.EscapeName(d), "      ", 100)
	}
	return b.String()
}

// wrap writes s in lines of at most width columns after indent, broken
// at spaces, or inside words longer than a line.
func wrap(b *strings.Builder, s, indent string, width int) {
	room := width - len(indent)
	for s != "" {
		n := len(s)
		if n > room {
			n = strings.LastIndexByte(s[:room+1], ' ')
			if n <= 0 {
				n = room
				for n > 1 && !utf8.RuneStart(s[n]) {
					n--
				}
			}
		}
		b.WriteString(indent + strings.TrimRight(s[:n], " ") + "\n")
		s = strings.TrimLeft(s[n:], " ")
	}
}
