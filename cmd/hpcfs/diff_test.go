package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
	wggen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

// TestDiffMounted mounts two runs (generated webgrind profiles) with
// `hpcfs mount A B MOUNTPOINT`: a/ and b/ are the two sources as mounted
// alone; diff/profile.pb.gz gives go tool pprof -top the same net total
// and the same flat and cum values per function as go tool pprof
// -diff_base=a/profile.pb.gz b/profile.pb.gz -top; procedures.csv's
// changes are b's procedures less a's (each run's bottom-up.csv); the folded
// stacks' two columns add up to each run's total; the SVG is red and blue.
func TestDiffMounted(t *testing.T) {
	dir := t.TempDir()
	var runs []string
	for i, name := range []string{"a.webgrind", "b.webgrind"} {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := wggen.Random(int64(i+1), 40, 8).Write(f, 7); err != nil {
			t.Fatal(err)
		}
		f.Close()
		runs = append(runs, p)
	}
	mnt := mountCLISources(t, runs)
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(mnt, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// each run's procedures (bottom-up.csv's depth-0 rows): function ->
	// exclusive value of the first metric, and the total
	exc := make([]map[string]int64, 2)
	totals := make([]int64, 2)
	for i, side := range []string{"a", "b"} {
		if !bytes.Equal(read(side+"/README.txt"), runCLI(t, "cat", runs[i], "README.txt")) {
			t.Errorf("%s/README.txt is not that of %s mounted alone", side, runs[i])
		}
		exc[i] = map[string]int64{}
		for _, r := range testdata.ReadCSV(t, read(side+"/bottom-up.csv"))[1:] {
			if r[1] == "0" {
				v, _ := strconv.ParseInt(r[5], 10, 64)
				exc[i][r[0]] = v
				totals[i] += v
			}
		}
	}
	if !strings.Contains(string(read("README.txt")), "diff/") {
		t.Error("README.txt does not explain diff/")
	}

	checkDiffTop(t, mnt, "profile.pb.gz")

	rows := testdata.ReadCSV(t, read("diff/procedures.csv"))
	if strings.Join(rows[0], ",") != "function,metric,a_inc,b_inc,b_minus_a_inc,b_over_a_inc,a_exc,b_exc,b_minus_a_exc,b_over_a_exc" {
		t.Fatalf("procedures.csv header %v", rows[0])
	}
	metric := rows[1][1]
	var net int64
	for _, r := range rows[1:] {
		if r[1] != metric {
			continue
		}
		d, _ := strconv.ParseInt(r[8], 10, 64)
		net += d
		if want := exc[1][r[0]] - exc[0][r[0]]; r[1] == metric && d != want {
			t.Errorf("%s: b_minus_a_exc %d, the runs' bottom-up.csv say %d", r[0], d, want)
		}
	}
	if net != totals[1]-totals[0] {
		t.Errorf("procedures.csv's changes add up to %d, the runs' totals differ by %d", net, totals[1]-totals[0])
	}
	var sums [2]int64
	for _, l := range strings.Split(strings.TrimSpace(string(read("diff/flame/"+render.Name(metric, "metric")+".folded"))), "\n") {
		f := strings.Fields(l)
		for i := range 2 {
			v, _ := strconv.ParseInt(f[len(f)-2+i], 10, 64)
			sums[i] += v
		}
	}
	if sums[0] != totals[0] || sums[1] != totals[1] {
		t.Errorf("folded columns add up to %v, the runs' totals are %v", sums, totals)
	}
	svg := string(read("diff/flame/" + render.Name(metric, "metric") + ".svg"))
	if !strings.Contains(svg, `fill="rgb(255,`) || !strings.Contains(svg, `,255)"`) {
		t.Error("the SVG has no red or no blue frame")
	}
}

// pprofTop is the net total ("Showing nodes accounting for N") and the
// rows (flat, cum, name) of go tool pprof -top of args.
func pprofTop(t *testing.T, args ...string) (string, []string) {
	t.Helper()
	tool, err := exec.Command("go", "tool", "-n", "pprof").Output()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"-symbolize=none", "-top", "-nodecount=1000", "-nodefraction=0", "-edgefraction=0"}, args...)
	out, err := exec.Command(strings.TrimSpace(string(tool)), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
	}
	var net string
	var rows []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "Showing nodes accounting for "):
			net = f[4] // "<net>," (the denominator after it differs: see README.txt)
		case len(f) >= 6 && strings.HasSuffix(f[1], "%"):
			rows = append(rows, f[0]+" "+f[3]+" "+strings.Join(f[5:], " "))
		}
	}
	return net, rows
}

// checkDiffTop: pprof -top of the diff mount's diff/profile.pb.gz gives
// the same net total and flat and cum values per function as go tool
// pprof -top -diff_base=A B, where A and B are the profiles of a/ and b/
// matching run (a glob), merged by go tool pprof -proto when there are
// several (a repeated -diff_base is not summed: the last one wins).
func checkDiffTop(t *testing.T, mnt, run string) {
	t.Helper()
	var args []string
	for _, side := range []string{"a", "b"} {
		files, _ := filepath.Glob(filepath.Join(mnt, side, run))
		if len(files) == 0 {
			t.Fatalf("no %s/%s", side, run)
		}
		f := files[0]
		if len(files) > 1 {
			f = filepath.Join(t.TempDir(), side+".pb.gz")
			tool, _ := exec.Command("go", "tool", "-n", "pprof").Output()
			if out, err := exec.Command(strings.TrimSpace(string(tool)), append([]string{"-symbolize=none", "-proto", "-output=" + f}, files...)...).CombinedOutput(); err != nil {
				t.Fatalf("go tool pprof -proto %v: %v\n%s", files, err, out)
			}
		}
		if side == "a" {
			f = "-diff_base=" + f
		}
		args = append(args, f)
	}
	wantNet, wantRows := pprofTop(t, args...)
	gotNet, gotRows := pprofTop(t, filepath.Join(mnt, "diff/profile.pb.gz"))
	if gotNet != wantNet || len(wantRows) == 0 || strings.Join(gotRows, "\n") != strings.Join(wantRows, "\n") {
		t.Errorf("pprof -top of diff/profile.pb.gz: net %s, rows\n%s\n%v: net %s, rows\n%s", gotNet, strings.Join(gotRows, "\n"), args, wantNet, strings.Join(wantRows, "\n"))
	}
}

// TestDiffEveryFormat mounts two runs of each format that has a profile
// (corpus cases with a metric in common, else generated ones; webgrind's
// is TestDiffMounted) and
// checks diff/profile.pb.gz against go tool pprof -diff_base over the
// profiles that make each run: the one at the root of a database, trace
// or file; every per-thread profile of an hpcrun measurement directory;
// sum/ of a callgrind run in parts.
func TestDiffEveryFormat(t *testing.T) {
	corpus := "../../../shared/corpus/"
	gen := t.TempDir()
	for i, nodes := range []string{"300", "500"} {
		out := filepath.Join(gen, "meas"+strconv.Itoa(i))
		if b, err := exec.Command("go", "run", "../../testdata/cmd/genhpcrun", "-o", out, "-files", "3", "-nodes", nodes, "-metrics", "2").CombinedOutput(); err != nil {
			t.Fatalf("genhpcrun: %v\n%s", err, b)
		}
		out = filepath.Join(gen, "db"+strconv.Itoa(i))
		if b, err := exec.Command("go", "run", "../../testdata/cmd/genhpcdb", "-threads", "2", "-contexts", "500", "-samples", "10", "-metrics", "2", "-seed", strconv.Itoa(i+1), out).CombinedOutput(); err != nil {
			t.Fatalf("genhpcdb: %v\n%s", err, b)
		}
	}
	// two DCPI profiles of one image (addresses in common)
	for i := range 2 {
		if b, err := exec.Command("go", "run", "../../testdata/cmd/gendcpi", "-addresses", "3000", "-seed", strconv.Itoa(i+1), "-o", filepath.Join(gen, "dcpi"+strconv.Itoa(i))).CombinedOutput(); err != nil {
			t.Fatalf("gendcpi: %v\n%s", err, b)
		}
	}
	// two callgrind runs in parts: the corpus's four parts, and its first two
	for i, n := range []int{4, 2} {
		dir := filepath.Join(gen, "parts"+strconv.Itoa(i))
		os.Mkdir(dir, 0o755)
		for _, suffix := range []string{"", ".1", ".2", ".3"}[:n] {
			b, err := os.ReadFile(corpus + "callgrind/valgrind-3.19-generated/callgrind.out.parts" + suffix)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "callgrind.out.parts"+suffix), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name, a, b, run string
	}{
		{"hpcrun measurement dirs", filepath.Join(gen, "meas0"), filepath.Join(gen, "meas1"), "*/profile.pb.gz"},
		{"hpcdb 4.0", filepath.Join(gen, "db0"), filepath.Join(gen, "db1"), "profile.pb.gz"},
		{"hpcdb meta.db", corpus + "hpctoolkit-metadb/hpctoolkit-small", corpus + "hpctoolkit-metadb/hpctoolkit-loops-cputime-t", "profile.pb.gz"},
		{"callgrind files", corpus + "callgrind/valgrind-3.19-generated/callgrind.out.default", corpus + "callgrind/valgrind-3.19-generated/callgrind.out.cachesim", "profile.pb.gz"},
		{"callgrind runs in parts", filepath.Join(gen, "parts0"), filepath.Join(gen, "parts1"), "sum/profile.pb.gz"},
		{"dcpi", filepath.Join(gen, "dcpi0"), filepath.Join(gen, "dcpi1"), "profile.pb.gz"},
		{"otf2", corpus + "otf2/pipit-ping-pong/traces.otf2", corpus + "otf2/gen-threads-metrics/traces.otf2", "profile.pb.gz"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mnt := mountCLISources(t, []string{c.a, c.b})
			checkDiffTop(t, mnt, c.run)
			readme, err := os.ReadFile(filepath.Join(mnt, "README.txt"))
			if err != nil || !strings.Contains(string(readme), "run a: the sum of") {
				t.Errorf("README.txt does not name the runs compared (%v)", err)
			}
		})
	}
}
