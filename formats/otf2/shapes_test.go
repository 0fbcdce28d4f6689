package otf2

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/gen/otf2ref"
)

// TestShapesMatchOtf2Print runs otf2-print on archives the OTF2 reference
// writer wrote in unusual but legal shapes (otf2ref: 300 locations of
// every kind, empty ones, Score-P-like local definitions with mapping
// tables and clock offsets, OTF2_UNDEFINED values, huge ids, strings of
// every byte, every event and definition record): events.txt and
// definitions.txt equal its output byte for byte, every location's
// events.csv its events field by field, header.txt holds the anchor's
// properties that otf2-print -I lists.
func TestShapesMatchOtf2Print(t *testing.T) {
	dirs := otf2ref.Write(t, otf2ref.Shapes...)
	for i, shape := range otf2ref.Shapes {
		t.Run(shape, func(t *testing.T) {
			src := testdata.Open(t, Open, dirs[i])
			for view, args := range map[string][]string{"events.txt": nil, "definitions.txt": {"-G"}} {
				want := otf2Print(t, dirs[i], args...)
				if got := testdata.ReadFS(t, src.FS(), view); !bytes.Equal(got, want) {
					t.Errorf("%s differs from otf2-print %v (%d vs %d bytes)\n%s", view, args, len(got), len(want), firstDiff(got, want))
				}
			}
			checkEventsCSV(t, src.FS(), string(otf2Print(t, dirs[i])))
			// header.txt holds the anchor's properties, as otf2-print -I lists them.
			header := string(testdata.ReadFS(t, src.FS(), "header.txt"))
			var name string
			props := 0
			for _, line := range strings.Split(string(otf2Print(t, dirs[i], "-I")), "\n") {
				if v, ok := strings.CutPrefix(line, "Property name                  "); ok {
					name = v
				} else if v, ok := strings.CutPrefix(line, "Property value                 "); ok {
					if !strings.Contains(header, "\nproperty "+name+": "+v+"\n") {
						t.Errorf("header.txt lacks property %s: %s\n%s", name, v, header)
					}
					props++
				}
			}
			if shape == otf2ref.Many && props != 3 {
				t.Errorf("otf2-print -I lists %d properties of the many shape, its writer sets 3", props)
			}
			if errs := testdata.ReadFS(t, src.FS(), "_errors.txt"); len(errs) != 0 {
				t.Errorf("_errors.txt of an intact archive:\n%s", errs)
			}
		})
	}
}

// pyMessages pairs MPI sends and receives read with python3-otf2 the way
// messages.csv says it does (a receive takes the first unmatched send of
// the same communicator, sender, receiver and tag) and prints the rows,
// sorted: an independent reading of ranks, locations, tags, bytes and
// times (ns from ticks, rounded down).
const pyMessages = `
import sys, otf2
from collections import defaultdict, deque
with otf2.reader.open(sys.argv[1]) as tr:
    res = tr.definitions.clock_properties.timer_resolution
    ns = lambda t: t * 10**9 // res
    sends, recvs = [], []
    for loc, ev in tr.events:
        if isinstance(ev, (otf2.events.MpiSend, otf2.events.MpiIsend)):
            sends.append((ev.communicator, loc, ev.communicator.group.members[ev.receiver], ev.msg_tag, ev.msg_length, ns(ev.time), ev.receiver))
        elif isinstance(ev, (otf2.events.MpiRecv, otf2.events.MpiIrecv)):
            recvs.append((ev.communicator, ev.communicator.group.members[ev.sender], loc, ev.msg_tag, ev.msg_length, ns(ev.time), ev.sender))
    q = defaultdict(deque)
    for s in sends:
        q[(s[0]._ref, s[1]._ref, s[2]._ref, s[3])].append(s)
    rows = []
    for r in recvs:
        k = (r[0]._ref, r[1]._ref, r[2]._ref, r[3])
        if q[k]:
            s = q[k].popleft()
            rows.append(("message", s[0].name, r[6], s[6], s[1]._ref, r[2]._ref, s[3], s[4], s[5], r[5]))
        else:
            rows.append(("unmatched_recv", r[0].name, r[6], "", r[1]._ref, r[2]._ref, r[3], r[4], "", r[5]))
    for k in q:
        for s in q[k]:
            rows.append(("unmatched_send", s[0].name, "", s[6], s[1]._ref, s[2]._ref, s[3], s[4], s[5], ""))
    for r in sorted(",".join(str(x) for x in r) for r in rows):
        print(r)
`

// pyCCT reads ENTER/LEAVE with python3-otf2 and prints every call path
// (region ids from the root) of the whole trace (location "") and of each
// location: calls, inclusive and exclusive ns.
const pyCCT = `
import sys, otf2
from collections import defaultdict
with otf2.reader.open(sys.argv[1]) as tr:
    res = tr.definitions.clock_properties.timer_resolution
    ns = lambda t: t * 10**9 // res
    stats = defaultdict(lambda: [0, 0, 0])
    stacks = defaultdict(list)
    for loc, ev in tr.events:
        st = stacks[loc._ref]
        if isinstance(ev, otf2.events.Enter):
            path = (st[-1][0] if st else ()) + (ev.region._ref,)
            st.append([path, ns(ev.time), 0])
        elif isinstance(ev, otf2.events.Leave) and st:
            path, t0, child = st.pop()
            dur = ns(ev.time) - t0
            for key in ("", str(loc._ref)):
                s = stats[(key, path)]
                s[0] += 1
                s[1] += dur
                s[2] += dur - child
            if st:
                st[-1][2] += dur
    for r in sorted("%s|%s,%d,%d,%d" % (k[0], ";".join(map(str, k[1])), s[0], s[1], s[2]) for k, s in stats.items()):
        print(r)
`

// cctPaths turns a cct.csv into pyCCT's lines for location loc ("" for
// the whole trace): each call path's region ids from the root, calls,
// inclusive and exclusive ns (the root row left out).
func cctPaths(t *testing.T, csv []byte, loc string) []string {
	rows := testdata.ReadCSV(t, csv)
	if strings.Join(rows[0], ",") != "ctx_id,parent_id,depth,function,region_id,call_count,duration_ns_inc,duration_ns_exc" {
		t.Fatalf("cct.csv header %v", rows[0])
	}
	path := map[string]string{}
	var out []string
	for _, r := range rows[1:] {
		if r[1] == "" {
			continue
		}
		p := r[4]
		if pp := path[r[1]]; pp != "" {
			p = pp + ";" + p
		}
		path[r[0]] = p
		out = append(out, loc+"|"+p+","+r[5]+","+r[6]+","+r[7])
	}
	return out
}

// TestShapesMatchPythonOTF2 checks imbalance.csv, messages.csv and cct.csv
// (of the trace and of every location) of the reference writer's archives
// against readings with python3-otf2, on the shapes its reader reads.
func TestShapesMatchPythonOTF2(t *testing.T) {
	py := python3otf2(t)
	dirs := otf2ref.Write(t, otf2ref.PythonShapes...)
	run := func(t *testing.T, script, dir string) string {
		out, err := exec.Command(py, "-c", script, filepath.Join(dir, "traces.otf2")).Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	for i, shape := range otf2ref.PythonShapes {
		t.Run(shape, func(t *testing.T) {
			fsys := testdata.Open(t, Open, dirs[i]).FS()
			_, imb, _ := strings.Cut(string(testdata.ReadFS(t, fsys, "imbalance.csv")), "\n")
			if want := run(t, pyProfile, dirs[i]); imb != want {
				t.Errorf("imbalance.csv differs from python3-otf2\n%s", firstDiff([]byte(imb), []byte(want)))
			}
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "messages.csv"))
			var msgs []string
			for _, r := range rows[1:] {
				msgs = append(msgs, strings.Join(r, ","))
			}
			slices.Sort(msgs)
			got := strings.Join(msgs, "\n")
			if len(msgs) > 0 {
				got += "\n"
			}
			if want := run(t, pyMessages, dirs[i]); got != want {
				t.Errorf("messages.csv differs from python3-otf2\n%s", firstDiff([]byte(got), []byte(want)))
			}
			paths := cctPaths(t, testdata.ReadFS(t, fsys, "cct.csv"), "")
			for _, l := range locationsOf(t, fsys) {
				paths = append(paths, cctPaths(t, testdata.ReadFS(t, fsys, "locations/"+l[0]+"/cct.csv"), l[0])...)
			}
			slices.Sort(paths)
			got = strings.Join(paths, "\n") + "\n"
			if want := run(t, pyCCT, dirs[i]); got != want {
				t.Errorf("cct.csv differs from python3-otf2\n%s", firstDiff([]byte(got), []byte(want)))
			}
			t.Logf("%d messages, %d call paths equal python3-otf2's", len(msgs), len(paths))
		})
	}
}

// TestShapesDamaged damages the reference writer's archives: an event file
// cut in the middle, an event file missing, the global definitions cut,
// a local definition file cut. Every view still reads, the damaged
// location's events end where the damage is, the other locations are
// intact, and _errors.txt names the file and the byte.
func TestShapesDamaged(t *testing.T) {
	dirs := otf2ref.Write(t, otf2ref.Shapes...)
	for i, shape := range otf2ref.Shapes {
		t.Run(shape, func(t *testing.T) {
			intact := testdata.Open(t, Open, dirs[i]).FS()
			locs := locationsOf(t, intact)
			rows, lines := map[string]int{}, map[string]int{}
			biggest := ""
			for _, l := range locs {
				b := testdata.ReadFS(t, intact, "locations/"+l[0]+"/events.csv")
				rows[l[0]] = len(testdata.ReadCSV(t, b)) - 1
				lines[l[0]] = bytes.Count(b, []byte("\n")) - 1 // some cells hold newlines
				if biggest == "" || rows[l[0]] > rows[biggest] {
					biggest = l[0]
				}
			}
			damage := func(t *testing.T, file string, fn func(p string) error) *damaged {
				dir := filepath.Join(t.TempDir(), shape)
				if err := os.CopyFS(dir, os.DirFS(dirs[i])); err != nil {
					t.Fatal(err)
				}
				if err := fn(filepath.Join(dir, file)); err != nil {
					t.Fatal(err)
				}
				src := testdata.Open(t, Open, dir)
				for _, view := range []string{"events.txt", "definitions.txt", "header.txt", "cct.csv", "messages.csv", "regions.csv", "locations.csv"} {
					readAllowErr(t, src, view)
				}
				errs := string(testdata.ReadFS(t, src.FS(), "_errors.txt"))
				if !strings.Contains(errs, file) {
					t.Errorf("_errors.txt does not name %s:\n%s", file, errs)
				}
				return &damaged{src, errs}
			}
			cut := func(p string) error {
				fi, err := os.Stat(p)
				if err != nil {
					return err
				}
				return os.Truncate(p, fi.Size()/2)
			}
			t.Run("cut-evt", func(t *testing.T) {
				d := damage(t, "traces/"+biggest+".evt", cut)
				got := strings.Count(string(readAllowErr(t, d.src, "locations/"+biggest+"/events.csv")), "\n") - 1
				if got <= 0 || got >= lines[biggest] {
					t.Errorf("cut location %s: %d lines of %d", biggest, got, lines[biggest])
				}
				if !strings.Contains(d.errs, "traces/"+biggest+".evt at byte ") {
					t.Errorf("_errors.txt gives no offset in the cut file:\n%s", d.errs)
				}
				d.intactBut(t, rows, biggest)
			})
			t.Run("missing-evt", func(t *testing.T) {
				d := damage(t, "traces/"+biggest+".evt", os.Remove)
				d.intactBut(t, rows, biggest)
			})
			t.Run("cut-definitions", func(t *testing.T) {
				d := damage(t, "traces.def", cut)
				if !strings.Contains(d.errs, "traces.def at byte ") {
					t.Errorf("_errors.txt gives no offset in traces.def:\n%s", d.errs)
				}
			})
			if _, err := os.Stat(filepath.Join(dirs[i], "traces", biggest+".def")); err == nil {
				t.Run("cut-local-definitions", func(t *testing.T) {
					d := damage(t, "traces/"+biggest+".def", cut)
					if !strings.Contains(d.errs, "traces/"+biggest+".def at byte ") {
						t.Errorf("_errors.txt gives no offset in the local definitions:\n%s", d.errs)
					}
					d.intactBut(t, rows, biggest)
				})
			}
		})
	}
}

// damaged is a damaged archive's source and its _errors.txt.
type damaged struct {
	src  *vfs.Source
	errs string
}

// intactBut checks that every location but loc has its rows of events.csv.
func (d *damaged) intactBut(t *testing.T, rows map[string]int, loc string) {
	t.Helper()
	for l, n := range rows {
		if l == loc {
			continue
		}
		if got := len(testdata.ReadCSV(t, testdata.ReadFS(t, d.src.FS(), "locations/"+l+"/events.csv"))) - 1; got != n {
			t.Errorf("location %s: %d rows, intact %d", l, got, n)
		}
	}
}
