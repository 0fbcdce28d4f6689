package faults

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata/clitest"
)

// rssBudget is the memory budget of one mount (DESIGN.md: under 64 MB):
// a run whose server passes it fails, and the table names each format's
// largest run. The short slice's servers peak at 24-42 MiB (VmHWM, small
// generated inputs, every view read; about 15 MiB of it the binary's own
// pages), the largest a callgrind profile's lines.parquet.
const rssBudget = 64 << 20

// A mountRun is what one mount of a source gave.
type mountRun struct {
	tree     *Tree
	problems []error
	refused  string // the mount did not start: its message
	panicked bool   // a handler panicked or the server crashed
	timedOut bool
	rss      int64 // the server's peak resident set once every view was read, bytes
}

// mountAndRead mounts src with `hpcfs mount -f` (its own process, so its
// peak RSS is its own), reads every view through the kernel as ReadAll
// does, and unmounts with SIGTERM. Reading is bounded by mutantTimeout.
func mountAndRead(t *testing.T, src, indexDir string) mountRun {
	mnt := t.TempDir()
	srv := clitest.Start(t, nil, "--index-dir", indexDir, "mount", "-f", src, mnt)
	var run mountRun
	finish := func() {
		err := <-srv.Exited
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 2 || strings.Contains(srv.Stderr.String(), "panic") {
			run.panicked = true
		}
	}
	if !srv.Mounted() {
		finish()
		run.refused = strings.TrimSpace(srv.Ready + " " + srv.Stderr.String())
		return run
	}
	type result struct {
		tree     *Tree
		problems []error
	}
	done := make(chan result, 1)
	go func() {
		tr, problems := ReadAll(os.DirFS(mnt))
		done <- result{tr, problems}
	}()
	select {
	case res := <-done:
		run.tree, run.problems = res.tree, res.problems
		run.rss = peakRSS(srv.Cmd.Process.Pid)
		srv.Cmd.Process.Signal(syscall.SIGTERM)
	case <-time.After(mutantTimeout):
		run.timedOut = true
		srv.Cmd.Process.Kill()
		exec.Command("fusermount3", "-u", "-z", mnt).Run()
		<-done
	}
	finish()
	return run
}

// peakRSS is the peak resident set of the live process pid (VmHWM).
// The rusage of a child is no measure: it starts from the parent's
// resident set at the fork, and the test process is large.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// indexSeal is the length of the seal that ends every file hpcfs writes
// to an index directory (render/seal.go: an HMAC-SHA256 under the
// directory's key, its first 16 bytes).
const indexSeal = 16

// damageIndex damages one index file of dir as a crashed writer or a
// hostile user would: k selects the kind. Some reseal the file as a
// forger who knows the format but not the directory's key would (with a
// key of its own), the way a CRC used to be mended; two of them forge a
// size or a checkpoint offset within the bounds the layout allows, which
// only a read of the segment could tell from the truth without the seal.
func damageIndex(t *testing.T, dir string, k int, rng *rand.Rand) string {
	all, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	var files []string // those with a body to forge (a saved result may have a few bytes)
	for _, p := range all {
		if fi, err := os.Stat(p); err == nil && fi.Size() >= 16+indexSeal {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return ""
	}
	sort.Strings(files)
	p := files[rng.IntN(len(files))]
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("index %s: %v", p, err)
	}
	body := b[:len(b)-indexSeal]
	reseal := func(what string) string {
		key := make([]byte, 32)
		for i := range key {
			key[i] = byte(rng.IntN(256))
		}
		m := hmac.New(sha256.New, key)
		m.Write(body)
		copy(b[len(body):], m.Sum(nil))
		return what + ", resealed without the key"
	}
	// checkpoint walks to checkpoint i (of an index, not a saved result:
	// false when the walk leaves the body) and returns its offset field.
	checkpoint := func(i int) (int, bool) {
		at := 12
		for ; i > 0 && at+12 <= len(body); i-- {
			at += 12 + int(binary.LittleEndian.Uint32(body[at+8:]))
		}
		return at, at+12 <= len(body)-8
	}
	var what string
	switch k % 7 {
	case 0:
		body[rng.IntN(len(body))] ^= 0xff
		what = "byte flipped"
	case 1:
		body[7] |= 0x80 // the size's high bit
		what = reseal("size high bit")
	case 2:
		binary.LittleEndian.PutUint64(body, binary.LittleEndian.Uint64(body)+1+uint64(rng.IntN(1000)))
		what = reseal("size too large")
	case 3:
		// The high bit of a checkpoint's offset (the crash).
		n := int(binary.LittleEndian.Uint32(body[8:]))
		if at, ok := checkpoint(rng.IntN(max(n, 1))); ok {
			body[at+7] |= 0x80
		}
		what = reseal("high bit in a checkpoint offset")
	case 4:
		// One byte less: the last checkpoint stays before the end, and the
		// end within the reach of the last checkpoint.
		binary.LittleEndian.PutUint64(body, binary.LittleEndian.Uint64(body)-1)
		what = reseal("size one less, within the layout's bounds")
	case 5:
		// A checkpoint after the first one byte on: still at least the
		// checkpoint spacing after the one before it.
		n := int(binary.LittleEndian.Uint32(body[8:]))
		if at, ok := checkpoint(1 + rng.IntN(max(n-1, 1))); ok && n > 1 {
			binary.LittleEndian.PutUint64(body[at:], binary.LittleEndian.Uint64(body[at:])+1)
		} else {
			body[len(body)-1] ^= 1 // one checkpoint (or a saved result): the step's low bit
		}
		what = reseal("a checkpoint one byte on, within the layout's bounds")
	default:
		b = b[:rng.IntN(len(b))]
		what = "cut"
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(p) + ": " + what
}

// mountTally counts the outcomes of one format's mounted runs.
type mountTally struct {
	runs, refused, reported, identical, silent, panics, timeouts, overBudget int
	peakRSS                                                                  int64
	peakRun                                                                  string // the label of the run with peakRSS
}

// TestFaultsMounted mounts mutants of a generated input of every format
// (and, with -long, of every corpus case) through a real mount, in their
// own server process, and damaged copies of the on-disk index of the
// undamaged input. Each run must not panic, hang or pass the memory
// ceiling (runs over the 64 MB budget are counted); a view that fails
// must be explained in _errors.txt; a damaged index must never change a
// view unless _errors.txt names it. It prints per format the runs,
// panics, timeouts, peak RSS and the share that changed views silently.
func TestFaultsMounted(t *testing.T) {
	fsnodetest.Require(t)
	sources := generated(t, t.TempDir())
	if *long {
		for k, v := range corpusSources(t) {
			sources[k] = v
		}
	}
	names := slices.Sorted(maps.Keys(sources))
	perSource := 2 // mutations of the input and of the index, each
	if *long {
		perSource = len(Mutations)
	}
	tallies := map[string]*mountTally{}
	for si, name := range names {
		work, dst, fresh := freshCopy(t, name, sources[name])
		fresh()
		index := t.TempDir()
		base := mountAndRead(t, dst, index)
		if base.refused != "" || base.tree == nil {
			t.Errorf("%s: the undamaged input does not mount: %s", name, base.refused)
			continue
		}
		format := strings.Split(name, "/")[0]
		if format == "gen" {
			format = strings.Split(name, "/")[1]
		}
		if tallies[format] == nil {
			tallies[format] = &mountTally{}
		}
		tl := tallies[format]
		if base.rss > tl.peakRSS {
			tl.peakRSS, tl.peakRun = base.rss, name+" undamaged"
		}
		if base.rss > rssBudget {
			tl.overBudget++
			t.Errorf("%s undamaged: server peak RSS %d MiB, over the %d MiB budget", name, base.rss>>20, rssBudget>>20)
		}
		check := func(label string, run mountRun, indexOnly bool) {
			tl.runs++
			if run.rss > tl.peakRSS {
				tl.peakRSS, tl.peakRun = run.rss, label
			}
			switch {
			case run.panicked:
				tl.panics++
				t.Errorf("%s: the server panicked", label)
			case run.timedOut:
				tl.timeouts++
				t.Errorf("%s: not read within %v", label, mutantTimeout)
			}
			if run.rss > rssBudget {
				tl.overBudget++
				t.Errorf("%s: server peak RSS %d MiB, over the %d MiB budget", label, run.rss>>20, rssBudget>>20)
			}
			if run.refused != "" {
				tl.refused++
				if indexOnly {
					t.Errorf("%s: a damaged index stops the mount: %s", label, run.refused)
				}
				return
			}
			if run.tree == nil {
				return
			}
			// A damaged index, resealed without the key or not, fails its
			// seal at load: it is thrown away, reported, and the view
			// measured again before anything is served from it.
			for _, p := range run.problems {
				t.Errorf("%s: %v", label, p)
			}
			if len(run.tree.Lines) == 0 {
				for p, err := range run.tree.Errors {
					t.Errorf("%s: %s fails (%v) and _errors.txt is empty", label, p, err)
				}
			}
			same := sameViews(run.tree, base.tree)
			switch {
			case indexOnly && !same:
				tl.silent++
				t.Errorf("%s: a damaged index changed the views", label)
			case len(run.tree.Lines) > 0:
				tl.reported++
			case same:
				tl.identical++
			default:
				tl.silent++
			}
		}
		for k := range perSource {
			rng := rand.New(rand.NewPCG(uint64(si), uint64(k)))
			// The index of the undamaged input, damaged; the input is not.
			idx := t.TempDir()
			CopySource(index, idx)
			if what := damageIndex(t, idx, k+si, rng); what != "" {
				check(fmt.Sprintf("%s index %s", name, what), mountAndRead(t, dst, idx), true)
			}
			// The input damaged, with no index.
			inputs := fresh()
			m := Mutations[(si+k*5)%len(Mutations)]
			if *long {
				m = Mutations[k]
			}
			if err := m.Apply(inputs[0], rng); err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(work, inputs[0])
			check(fmt.Sprintf("%s %s on %s", name, m.Name, rel), mountAndRead(t, dst, ""), false)
			fresh()
		}
	}
	formats := make([]string, 0, len(tallies))
	for f := range tallies {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	t.Logf("%-10s %5s %7s %8s %9s %7s %6s %8s %8s %6s", "format", "runs", "refused", "reported", "identical", "silent", "panics", "timeouts", "peak RSS", ">64MiB")
	for _, f := range formats {
		c := tallies[f]
		t.Logf("%-10s %5d %7d %8d %9d %6.0f%% %6d %8d %5d MiB %6d", f, c.runs, c.refused, c.reported, c.identical,
			100*float64(c.silent)/float64(max(c.runs, 1)), c.panics, c.timeouts, c.peakRSS>>20, c.overBudget)
	}
	for _, f := range formats {
		t.Logf("%-10s largest server: %s", f, tallies[f].peakRun)
	}
}
