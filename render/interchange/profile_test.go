package interchange

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/internal/vfs"
)

// TestProfileBuildError: a tree build that stops at damage keeps the tree
// before it and reports the damage once in _errors.txt, through the
// binding of the profile's profile.pb.gz, whichever view builds the tree
// (a flame graph here) and also when the tree is built before the source
// is bound (a diff reads its runs' trees so).
func TestProfileBuildError(t *testing.T) {
	damage := decode.ErrAt("test", "nodes", 40, "parent id not found", nil, decode.ErrFormat)
	for _, early := range []bool{false, true} {
		src := vfs.NewSource("test", "1", t.TempDir())
		p := NewProfile(func() (*Tree, error) {
			tr := NewTree([]Metric{{Name: "samples", Unit: "count"}})
			tr.Add(tr.Child(Root, Frame{Name: "main"}), 0, 7)
			return tr, damage
		}, "damaged", nil)
		p.AddViews(src.Root.AddDir("run"))
		if early {
			if _, err := p.tree(); err != nil {
				t.Fatal(err)
			}
		}
		svg, err := fs.ReadFile(src.FS(), "run/flame/samples.svg")
		if err != nil || !strings.Contains(string(svg), "main") {
			t.Fatalf("early %v: flame graph %v, %.80q", early, err, svg)
		}
		for _, view := range []string{"run/profile.pb.gz", "run/bottom-up.csv"} {
			if _, err := fs.ReadFile(src.FS(), view); err != nil {
				t.Fatalf("early %v: %s: %v", early, view, err)
			}
		}
		want := "run/profile.pb.gz: " + damage.Error()
		if got := src.Errors.Lines(); len(got) != 1 || got[0] != want {
			t.Errorf("early %v: _errors.txt %q, want the one line %q", early, got, want)
		}
	}
}
