package faults

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hpcrundec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/formats"
	"github.com/hpcfs/hpcfs/testdata"
	callgrindgen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
	dcpigen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
	hpcdbgen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
	hpcrungen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	webgrindgen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

var long = flag.Bool("long", false, "every mutation of every corpus case and generated input (minutes)")

const (
	mutantTimeout = 120 * time.Second // open and read every view of one mutant
	heapLimit     = 256 << 20         // peak live heap while a mutant is read
)

// generated writes a small input of each format under dir.
func generated(t *testing.T, dir string) map[string]string {
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]string{}
	p, err := ovnigen.WriteDemo(filepath.Join(dir, "ovni"))
	must(err)
	out["gen/ovni"] = p

	var b bytes.Buffer
	must(hpcrungen.Write(&b, hpcrungen.Random(hpcrungen.Options{Seed: 3, Layout: hpcrundec.LayoutC, Nodes: 2000, Metrics: 2})))
	p = filepath.Join(dir, "app-000000-000-7f0101-4242-0.hpcrun")
	must(os.WriteFile(p, b.Bytes(), 0o644))
	out["gen/hpcrun"] = p

	p = filepath.Join(dir, "database")
	_, err = hpcdbgen.Write(p, hpcdbgen.Config{Threads: 2, Contexts: 1500, Metrics: 2, Samples: 2000, Seed: 9})
	must(err)
	out["gen/hpcdb"] = p

	p = filepath.Join(dir, "database-meta")
	_, err = hpcdbgen.WriteMeta(p, hpcdbgen.Config{Threads: 2, Contexts: 1500, Metrics: 2, Samples: 2000, Unlisted: 2, Seed: 9})
	must(err)
	out["gen/hpcdb-meta"] = p

	p = filepath.Join(dir, "dcpi", "9805191724", "synthetic")
	must(os.MkdirAll(filepath.Dir(p), 0o755))
	must(os.WriteFile(p, dcpigen.Synthetic{Seed: 5, Addresses: 5000, MaxChunk: 30, Zeros: 0.3, MaxGap: 8}.Model().Bytes(), 0o644))
	out["gen/dcpi"] = p

	b.Reset()
	must(webgrindgen.Random(4, 300, 12).Write(&b, 7))
	p = filepath.Join(dir, "cachegrind.out.7.webgrind")
	must(os.WriteFile(p, b.Bytes(), 0o644))
	out["gen/webgrind"] = p

	p = filepath.Join(dir, "callgrind.out.1234")
	must(os.WriteFile(p, callgrindgen.Bytes(callgrindgen.Config{Seed: 2, Functions: 40, Records: 2000}), 0o644))
	out["gen/callgrind"] = p
	return out
}

// corpusSources finds the sources of every corpus case: the case
// directory itself when it is one (a database), else each entry of it
// that a format detects.
func corpusSources(t *testing.T) map[string]string {
	root := testdata.Corpus(t)
	out := map[string]string{}
	groups, _ := os.ReadDir(root)
	for _, g := range groups {
		cases, _ := os.ReadDir(filepath.Join(root, g.Name()))
		for _, c := range cases {
			dir := filepath.Join(root, g.Name(), c.Name())
			if !c.IsDir() {
				continue
			}
			if f, _, err := formats.Detect(dir); err == nil && f.Name != "" {
				out[g.Name()+"/"+c.Name()] = dir
				continue
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				n := e.Name()
				if strings.HasPrefix(n, "oracle") || strings.HasSuffix(n, ".license") || strings.HasSuffix(n, ".md") {
					continue
				}
				p := filepath.Join(dir, n)
				if _, _, err := formats.Detect(p); err == nil {
					out[g.Name()+"/"+c.Name()+"/"+n] = p
				}
			}
		}
	}
	return out
}

// tally counts the outcomes of one format's mutants.
type tally struct {
	mutants, refused, reported, identical, silent, failed int
}

// peakHeap samples the live heap (as of the last collection: garbage not
// yet collected is not memory the code holds) until stop is closed.
func peakHeap(stop chan struct{}, peak *atomic.Uint64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		metrics.Read(sample)
		if v := sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > peak.Load() {
			peak.Store(v.Uint64())
		}
		select {
		case <-stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// freshCopy makes a folder, work, for mutants of the source src: each is
// a fresh copy at one path, dst, so that views naming the source's path
// compare equal to the undamaged copy's. fresh (re)makes the copy and
// returns its input files (all its files when none is an input).
func freshCopy(t *testing.T, name, src string) (work, dst string, fresh func() []string) {
	work = t.TempDir()
	dst = filepath.Join(work, filepath.Base(src))
	fresh = func() []string {
		os.RemoveAll(dst)
		files, err := CopySource(src, dst)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: copy: %v", name, err)
		}
		var inputs []string
		for _, f := range files {
			if !notInput(f) {
				inputs = append(inputs, f)
			}
		}
		if len(inputs) == 0 {
			return files
		}
		return inputs
	}
	return work, dst, fresh
}

func TestFaults(t *testing.T) {
	sources := generated(t, t.TempDir())
	if *long {
		for k, v := range corpusSources(t) {
			sources[k] = v
		}
	} else {
		// One small case per corpus group, when the corpus is there.
		for _, c := range []string{"ovni/v1-basic-mix/ovni", "hpctoolkit/hpcrun-04.00-small", "hpctoolkit-metadb/hpctoolkit-small", "webgrind/xdebug-app-v7/callgrind.out.webgrind", "ovni-1x/v3-1.14.0-shapes-threads"} {
			if p := filepath.Join(testdata.CorpusDir(), c); exists(p) {
				sources["corpus/"+c] = p
			}
		}
	}
	names := slices.Sorted(maps.Keys(sources))

	tallies := map[string]*tally{}
	for si, name := range names {
		_, dst, fresh := freshCopy(t, name, sources[name])
		fresh()
		orig, err := formats.Open(dst)
		if err != nil {
			t.Errorf("%s: the undamaged input does not open: %v", name, err)
			continue
		}
		format := orig.Format
		want, _ := ReadAll(orig.FS())
		orig.Close()
		if tallies[format] == nil {
			tallies[format] = &tally{}
		}
		tl := tallies[format]

		// The short run takes half the kinds on generated inputs (the other
		// half on the next input) and four on corpus cases, rotating.
		muts := Mutations
		if !*long {
			muts = nil
			for k := range Mutations {
				if k%2 == si%2 {
					muts = append(muts, Mutations[k])
				}
			}
			if !strings.HasPrefix(name, "gen/") {
				muts = muts[si%len(muts):]
				muts = muts[:min(4, len(muts))]
			}
		}
		for mi, m := range muts {
			files := fresh()
			rng := rand.New(rand.NewPCG(uint64(si), uint64(mi)))
			target := files[0]
			if *long {
				target = files[mi%min(len(files), 3)]
			}
			if err := m.Apply(target, rng); err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(filepath.Dir(dst), target)
			label := fmt.Sprintf("%s %s on %s", name, m.Name, rel)
			tl.mutants++
			outcome := runMutant(t, label, dst, want)
			switch outcome {
			case "refused":
				tl.refused++
			case "reported":
				tl.reported++
			case "identical":
				tl.identical++
			case "silent":
				tl.silent++
			default:
				tl.failed++
			}
		}
	}
	fs := make([]string, 0, len(tallies))
	for f := range tallies {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	t.Logf("%-10s %7s %7s %8s %9s %6s %6s", "format", "mutants", "refused", "reported", "identical", "silent", "failed")
	for _, f := range fs {
		c := tallies[f]
		t.Logf("%-10s %7d %7d %8d %9d %6d %6d", f, c.mutants, c.refused, c.reported, c.identical, c.silent, c.failed)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// runMutant opens and reads one mutant within mutantTimeout, watching the
// heap, and classifies it: refused (does not open: allowed), reported
// (_errors.txt has lines), identical (every view as undamaged), silent
// (views differ, nothing reported: damage that reads as other valid
// data), or failed.
func runMutant(t *testing.T, label, path string, want *Tree) string {
	type result struct {
		tree     *Tree
		problems []error
		openErr  error
		panicked any
	}
	done := make(chan result, 1)
	stop := make(chan struct{})
	var peak atomic.Uint64
	runtime.GC()
	go peakHeap(stop, &peak)
	go func() {
		var r result
		defer func() {
			r.panicked = recover()
			done <- r
		}()
		src, err := formats.Open(path)
		if err != nil {
			r.openErr = err
			return
		}
		defer src.Close()
		r.tree, r.problems = ReadAll(src.FS())
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(mutantTimeout):
		close(stop)
		t.Errorf("%s: hangs (not done within %v)", label, mutantTimeout)
		return "failed"
	}
	close(stop)
	failed := false
	fail := func(format string, args ...any) {
		t.Errorf("%s: "+format, append([]any{label}, args...)...)
		failed = true
	}
	if r.panicked != nil {
		fail("panic: %v", r.panicked)
		return "failed"
	}
	if p := peak.Load(); p > heapLimit {
		fail("heap reached %d MiB", p>>20)
	}
	if r.openErr != nil {
		if failed {
			return "failed"
		}
		return "refused"
	}
	for _, p := range r.problems {
		fail("%v", p)
	}
	if len(r.tree.Lines) == 0 {
		for p, err := range r.tree.Errors {
			fail("%s fails (%v) and _errors.txt is empty", p, err)
		}
	}
	if failed {
		return "failed"
	}
	if len(r.tree.Lines) > 0 {
		return "reported"
	}
	if sameViews(r.tree, want) {
		return "identical"
	}
	return "silent"
}

func sameViews(a, b *Tree) bool {
	if len(a.Views) != len(b.Views) {
		return false
	}
	for p, v := range a.Views {
		if v != b.Views[p] {
			return false
		}
	}
	return true
}
