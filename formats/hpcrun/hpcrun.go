// Package hpcrun mounts HPCToolkit measurement files: one *.hpcrun profile
// or a measurements directory of them (with *.hpctrace files beside
// them). Each profile becomes a directory of views: hpcproftt.txt (the
// text of `hpcproftt --dump`), header.txt, metrics.csv, loadmap.csv,
// cct.csv (with inclusive sums), cct.txt, and trace.txt/trace.csv when a
// trace exists; profiles.csv has one row per profile.
//
// Mounting lists the directory only. A profile's headers are decoded when
// profiles.csv or one of its views is first used; the CCT is read by the
// views that need it, and the per-node state of the inclusive sums is kept
// for a few profiles at a time (see analysisBudget).
package hpcrun

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// Format registers hpcrun profiles and measurement directories.
var Format = vfs.Format{
	Name:     "hpcrun",
	Supports: "hpcrun profiles 02.00 (layouts A/B/C), 03.00 and 04.00 (sparse), *.hpcrun or measurement directories, with *.hpctrace",
	Detect:   Detect,
	Open:     Open,
	Unsupported: func(path string, head []byte) string {
		if bytes.HasPrefix(head, []byte("HPCRUN-")) {
			return "hpcrun file of a version this build does not read"
		}
		return ""
	},
}

const (
	profileExt = ".hpcrun"
	traceExt   = ".hpctrace"
)

// Detect recognises a profile by its magic, or a directory that holds
// profiles by the magic of its first *.hpcrun file.
func Detect(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if !fi.IsDir() {
		v, ok := sniff(path)
		if !ok {
			return "", false
		}
		return "hpcrun profile " + v, true
	}
	names := profileNames(path)
	if len(names) == 0 {
		return "", false
	}
	v, ok := sniff(filepath.Join(path, names[0]))
	if !ok {
		return "", false
	}
	return "hpcrun measurements directory, " + itoa(len(names)) + " profiles (" + v + ")", true
}

func sniff(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	hdr := make([]byte, 24)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return "", false
	}
	v, _, ok := hpcrun.Version(hdr)
	return v, ok
}

func profileNames(dir string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), profileExt) && de.Type().IsRegular() {
			out = append(out, de.Name())
		}
	}
	return out
}

// Open mounts a profile or a measurements directory.
func Open(path string) (*vfs.Source, error) { return vfs.FileOrDir(path, openFile, openDir) }

// openFile mounts one profile, with the trace beside it when there is one.
func openFile(path string) (*vfs.Source, error) {
	dir, file := filepath.Split(path)
	base := strings.TrimSuffix(file, profileExt)
	traces := map[string]bool{}
	if _, err := os.Stat(filepath.Join(dir, base+traceExt)); err == nil {
		traces[base] = true
	}
	return openProfiles(path, filepath.Dir(path), []string{file}, traces, false)
}

// openDir mounts the profiles of a measurements directory, each with its
// trace when there is one.
func openDir(path string) (*vfs.Source, error) {
	des, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	traces := map[string]bool{}
	for _, de := range des {
		switch n := de.Name(); {
		case strings.HasSuffix(n, profileExt) && de.Type().IsRegular():
			files = append(files, n)
		case strings.HasSuffix(n, traceExt):
			traces[strings.TrimSuffix(n, traceExt)] = true
		}
	}
	return openProfiles(path, path, files, traces, true)
}

// openProfiles mounts the profile files of dir (path is the file or the
// directory mounted, isDir which), with the traces of the base names in
// traces.
func openProfiles(path, dir string, files []string, traces map[string]bool, isDir bool) (*vfs.Source, error) {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, profileExt)
	}
	fromData := names
	names = render.FileNames(names, append(vfs.Reserved, "profiles.csv")...)
	idx := make([]int, len(files))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })

	m := &mount{profiles: make([]*profile, len(files))}
	version := ""
	if len(idx) > 0 { // the first profile's, as Detect reports
		version, _ = sniff(filepath.Join(dir, files[idx[0]]))
	}
	var tracePaths []string // inputs beside a single profile's file
	for k, i := range idx {
		base := strings.TrimSuffix(files[i], profileExt)
		p := &profile{m: m, name: names[i], file: files[i], path: filepath.Join(dir, files[i])}
		if traces[base] {
			p.tracePath = filepath.Join(dir, base+traceExt)
			tracePaths = append(tracePaths, p.tracePath)
		}
		m.profiles[k] = p
	}
	m.src = vfs.NewSource("hpcrun", version, path, tracePaths...)
	m.symErr = m.src.Errors.Reporter("symbols")
	m.src.OnClose(m)
	m.src.Errors.ReportRenames("", fromData, names)
	root := m.src.Root
	root.AddFile("README.txt", render.Bytes(m.readme, nil))
	root.AddFile("profiles.csv", m.profilesTable().SmallCSV(nil))
	root.AddFile("imbalance.csv", m.imbalanceTable().CSV())
	var traced []*profile
	for _, p := range m.profiles {
		root.Add(p.name, vfs.Lazy(p.entries))
		m.src.Run = append(m.src.Run, p.name+"/profile.pb.gz")
		if p.tracePath != "" {
			traced = append(traced, p)
		}
	}
	if len(traced) > 0 {
		interchange.AddTraceViews(root, &traceSet{m: m, profiles: traced})
	}
	m.src.AddInfo("profiles", len(files))
	m.src.AddInfo("traces", len(traces))
	if !isDir && len(m.profiles) == 1 {
		// A single file: decode its headers now so that problems show at once.
		p := m.profiles[0]
		if _, err := p.open(); err == nil {
			s := p.summary()
			m.src.AddInfo("layout", s.layout)
			m.src.AddInfo("epochs", s.epochs)
			m.src.AddInfo("cct nodes", s.nodes)
		}
	}
	return m.src, nil
}

type mount struct {
	src      *vfs.Source
	profiles []*profile // sorted by name
	symsOnce sync.Once
	syms     *symbols.Resolver           // see resolver
	symErr   func(error)                 // reports a module without symbols
	compared sync.Map                    // module paths whose binary was compared with the measurement
	imb      render.Retained[*imbalance] // imbalance.csv's statistics
}

func (m *mount) Close() error {
	for _, p := range m.profiles {
		p.close()
	}
	return nil
}

func itoa(n int) string { return string(render.AppendPadded(nil, uint64(n), 0)) }

// profile is one .hpcrun file; everything about it is decoded on demand.
type profile struct {
	m         *mount
	name      string // directory name
	file      string // file name
	path      string
	tracePath string

	once sync.Once
	f    *hpcrun.File
	err  error

	anaMu sync.Mutex
	ana   atomic.Pointer[analysis]

	traceOnce sync.Once
	trace     *hpcrun.Trace
	traceErr  error
	lookup    *nodeLookup
}

// open decodes the profile's headers once and keeps the file open.
func (p *profile) open() (*hpcrun.File, error) {
	p.once.Do(func() {
		p.f, p.err = hpcrun.Open(p.path)
		if p.err != nil {
			p.m.src.Errors.Report(p.name, p.err)
			return
		}
		p.m.src.Errors.ReportAll(p.name, p.f.Problems)
	})
	return p.f, p.err
}

func (p *profile) close() {
	if p.f != nil {
		p.f.Close()
	}
	if p.trace != nil {
		p.trace.Close()
	}
}

type summary struct {
	layout                           string
	epochs, metrics, lms             int
	nodes                            uint64
	version                          string
	program, rank, thread, pid, host string
}

func (p *profile) summary() summary {
	f, err := p.open()
	if err != nil {
		v, _ := sniff(p.path)
		return summary{version: v, layout: "unsupported"}
	}
	s := summary{layout: f.Layout.String(), epochs: len(f.Epochs), nodes: f.NumNodes(), version: f.Version + string(f.Endian),
		program: f.Header("program-name"), rank: f.Header("mpi-rank"), thread: f.Header("thread-id"),
		pid: f.Header("process-id"), host: hexID(f.Header("host-id"))}
	if n := len(f.Epochs); n > 0 {
		last := f.Epochs[n-1]
		s.metrics, s.lms = len(last.Metrics), len(last.LoadModules)
	}
	return s
}

// hexID writes a hex identifier as 0x hex, so that spreadsheets keep it
// as text ("12e45678" would otherwise become a number).
func hexID(s string) string {
	if s == "" || strings.HasPrefix(s, "0x") {
		return s
	}
	return "0x" + s
}

// noHeader is the preamble of a text table without a header line.
func noHeader() ([]byte, error) { return nil, nil }

// entries lists the profile's views; the directory calls it once.
func (p *profile) entries() []vfs.Entry {
	var out []vfs.Entry
	add := func(name string, v render.View) { out = append(out, vfs.Entry{Name: name, Node: vfs.NewFile(v)}) }
	if f, err := p.open(); err != nil || f.Sparse == nil { // 04.00 has no hpcproftt --dump text to match
		add("hpcproftt.txt", render.Stream(ptGen(p.startProftt), nil))
	}
	add("header.txt", render.Bytes(p.headerText, nil))
	add("metrics.csv", p.metricsTable().SmallCSV(nil))
	add("loadmap.csv", p.loadmapTable().SmallCSV(nil))
	add("cct.csv", p.cctTable().CSV())
	add("cct.txt", render.Stream(posGen{p.startCCTTxt, p.symbolFiles}, nil))
	out = append(out, interchange.NewProfile(p.tree, p.name, []string{"hpcfs: hpcrun profile " + p.file}).Entries()...)
	if p.tracePath != "" {
		add("trace.txt", p.traceTable(true).Text(noHeader))
		add("trace.csv", p.traceTable(false).CSV())
	}
	return out
}
