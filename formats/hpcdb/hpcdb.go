// Package hpcdb builds the tree of an HPCToolkit database of the
// experiment.xml 4.0 generation (experiment.xml, profile.db, cct.db,
// trace.db) or of the meta.db generation (meta.db, profile.db, cct.db,
// trace.db; meta.go): the metric and profile tables, the calling-context
// tree with summary values, per-context and per-profile values, the
// traces and, for 4.0, hpcproftt's dumps. Both generations fill the same
// model (model.go), so the views are shared.
//
// Mounting reads the binary headers only; experiment.xml or meta.db is
// parsed on first need and every view is rendered lazily.
package hpcdb

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// Format is the registry entry.
var Format = vfs.Format{
	Name:        "hpcdb",
	Supports:    "HPCToolkit database 4.0 directories (experiment.xml 4.0 + profile.db/cct.db/trace.db)",
	Detect:      Detect,
	Open:        Open,
	Unsupported: unsupported,
}

// unsupported names a file of a database (either generation) mounted
// alone.
func unsupported(path string, head []byte) string {
	if bytes.HasPrefix(head, []byte("HPCTOOLKIT")) && len(head) >= 14 {
		return "HPCToolkit " + strings.TrimSpace(string(head[10:14])) + " database file: mount the database directory"
	}
	return ""
}

// Detect recognises a database directory by the magic of its profile.db
// or the version of its experiment.xml.
func Detect(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	if b := head(filepath.Join(path, "profile.db"), 16); string(b) == hpcdb.ProfileMagic {
		return "HPCToolkit database (profile.db " + hpcdb.ProfileMagic + ")", true
	}
	b := head(filepath.Join(path, "experiment.xml"), 512)
	if bytes.Contains(b, []byte(`<HPCToolkitExperiment version="4.0"`)) {
		if _, err := os.Stat(filepath.Join(path, "meta.db")); err != nil {
			return "HPCToolkit database (experiment.xml 4.0)", true
		}
	}
	return "", false
}

func head(path string, n int) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := io.ReadFull(f, b)
	return b[:k]
}

// db is one opened database.
type db struct {
	dir     string
	src     *vfs.Source
	profile *hpcdb.ProfileDB
	cct     *hpcdb.CCTDB
	trace   *hpcdb.TraceDB
	xmlPath string
	// metaPath is the meta.db of a meta.db-generation database ("" for 4.0)
	metaPath string

	model lazyModel
	valid validity

	numCtx   int // size of the context-id space known at mount (contexts/)
	ctxOrder contextOrder
	imb      render.Retained[*imbalance] // imbalance.csv's statistics
}

// Open builds the tree of the database directory at path.
func Open(path string) (*vfs.Source, error) {
	return open(path, false)
}

func open(path string, meta bool) (*vfs.Source, error) {
	d, err := openDB(path, meta)
	if err != nil {
		return nil, err
	}
	return d.src, nil
}

// openDB opens the database at path and builds its tree.
func openDB(path string, meta bool) (*db, error) {
	d := &db{dir: path, xmlPath: filepath.Join(path, "experiment.xml")}
	name, version := "hpcdb", "4.0"
	if meta {
		d.metaPath = filepath.Join(path, "meta.db")
		name, version = metaName, metaVersion(d.metaPath)
	}
	src := vfs.NewSource(name, version, path)
	d.src = src
	d.model.d = d
	open := func(name string, fn func(string) error) {
		p := filepath.Join(path, name)
		if _, err := os.Stat(p); err != nil {
			return
		}
		if err := fn(p); err != nil {
			src.Errors.Report(name, err)
		}
	}
	open("profile.db", func(p string) (err error) {
		d.profile, err = hpcdb.OpenProfileDB(p)
		if err == nil {
			src.OnClose(d.profile)
			src.Errors.ReportAll("profile.db", d.profile.Problems)
		}
		return err
	})
	open("cct.db", func(p string) (err error) {
		d.cct, err = hpcdb.OpenCCTDB(p)
		if err == nil {
			src.OnClose(d.cct)
			src.Errors.ReportAll("cct.db", d.cct.Problems)
		}
		return err
	})
	open("trace.db", func(p string) (err error) {
		d.trace, err = hpcdb.OpenTraceDB(p)
		if err == nil {
			src.OnClose(d.trace)
			src.Errors.ReportAll("trace.db", d.trace.Problems)
		}
		return err
	})
	if meta {
		if _, err := os.Stat(d.metaPath); err != nil {
			return nil, err
		}
	} else if _, err := os.Stat(d.xmlPath); err != nil && d.profile == nil {
		return nil, err
	}
	if d.profile != nil {
		src.AddInfo("profiles", len(d.profile.Profiles))
	}
	if d.profile != nil {
		d.checkVersion("profile.db", d.profile.Header.Major, d.profile.Header.Minor)
	}
	if d.cct != nil {
		d.checkVersion("cct.db", d.cct.Header.Major, d.cct.Header.Minor)
	}
	if d.trace != nil {
		d.checkVersion("trace.db", d.trace.Header.Major, d.trace.Header.Minor)
	}
	d.numCtx = d.numContexts()
	if d.profile != nil {
		d.profile.CtxSpace = uint32(d.numCtx)
	}
	if d.cct != nil {
		src.AddInfo("contexts", d.cct.Header.NumCtx)
	}
	if d.trace != nil {
		src.AddInfo("trace lines", len(d.trace.Lines))
	}
	if meta {
		d.checkFooters()
	}
	d.build()
	return d, nil
}

func (d *db) build() {
	root := d.src.Root
	root.AddFile("README.txt", render.Bytes(d.readme, nil))
	root.AddFile("header.txt", render.Bytes(d.headerText, nil))
	if d.metaPath != "" {
		d.buildViews()
		return
	}
	dump := root.AddDir("dump")
	if d.profile != nil {
		dump.AddFile("profile.db.txt", streamParts(func() []render.Part { return profileDumpParts(d.profile) }, 1024))
	}
	if d.cct != nil {
		dump.AddFile("cct.db.txt", streamParts(func() []render.Part { return cctDumpParts(d.cct) }, 64))
	}
	if d.trace != nil {
		dump.AddFile("trace.db.txt", streamParts(func() []render.Part { return traceDumpParts(d.trace) }, 2048))
	}
	d.buildViews()
}

// knownMinor is the newest minor version of profile.db, cct.db and
// trace.db that hpcfs knows (4.0, HPCToolkit 2020 to 2024 alike).
const knownMinor = 0

// checkVersion reports a file of a newer minor version than hpcfs knows:
// it is read as the known one (minor versions only add), which may miss
// what was added, and the user should know that.
func (d *db) checkVersion(file string, major, minor uint8) {
	if minor > knownMinor {
		d.src.Errors.Report(file, fmt.Errorf("version %d.%d is newer than the %d.%d hpcfs knows: read as %d.%d; what later versions added is not shown",
			major, minor, major, knownMinor, major, knownMinor))
	}
}
