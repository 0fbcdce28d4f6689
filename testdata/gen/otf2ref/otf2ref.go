// Package otf2ref writes OTF2 archives of unusual but legal shapes with
// the OTF2 reference writer library: csrc/shapes.c, compiled with gcc against
// libotf2 (Debian libopen-trace-format2-dev) when a test first asks for
// an archive. Its archives are what otf2-print and python3-otf2 are run
// on, so that hpcfs's reading of OTF2 is checked on archives the reference
// library wrote, not only on those of the Go writer in testdata/gen/otf2.
package otf2ref

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:embed csrc/shapes.c
var source []byte

// The shapes shapes.c writes (its header comment says what each holds).
const (
	Many       = "many"        // 300 locations of every type in groups of every type, empty ones
	Local      = "local"       // Score-P-like local definitions, mapping tables, clock offsets
	LocalUndef = "local-undef" // Local plus OTF2_UNDEFINED field values
	Strings    = "strings"     // strings of every byte, a 70000-byte one, 1 tick per second
	Events     = "events"      // every event and global definition record of the writer
)

// Shapes is every shape.
var Shapes = []string{Many, Local, LocalUndef, Strings, Events}

// PythonShapes are the shapes python3-otf2's reader reads: it refuses
// references to undefined definitions, invalid UTF-8 and mistyped
// parameters, which the others hold on purpose.
var PythonShapes = []string{Many, Local}

// Missing says what is missing to write archives ("" for nothing).
func Missing() string {
	if _, err := exec.LookPath("gcc"); err != nil {
		return "gcc missing"
	}
	if _, err := os.Stat("/usr/include/otf2/otf2.h"); err != nil {
		return "OTF2 writer library missing (Debian libopen-trace-format2-dev)"
	}
	return ""
}

// Write compiles shapes.c into tb's temporary directory, writes each of
// shapes into a folder there and returns the folders (each holds
// traces.otf2), in the order asked. Without gcc or the library's header
// the test is skipped, except under CI=true, where it fails.
func Write(tb testing.TB, shapes ...string) []string {
	tb.Helper()
	if why := Missing(); why != "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal(why)
		}
		tb.Skip(why)
	}
	tmp := tb.TempDir()
	src, bin := filepath.Join(tmp, "shapes.c"), filepath.Join(tmp, "shapes")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		tb.Fatal(err)
	}
	// Debian names the library open-trace-format2, upstream otf2.
	var err error
	for _, lib := range []string{"-lopen-trace-format2", "-lotf2"} {
		out, e := exec.Command("gcc", "-O1", "-Wall", "-Wno-deprecated-declarations", "-o", bin, src, lib, "-lm").CombinedOutput()
		if err = e; e == nil {
			break
		}
		err = fmt.Errorf("gcc shapes.c %s: %v\n%s", lib, e, out)
	}
	if err != nil {
		tb.Fatal(err)
	}
	dirs := make([]string, len(shapes))
	for i, shape := range shapes {
		dirs[i] = filepath.Join(tmp, shape)
		if err := os.Mkdir(dirs[i], 0o755); err != nil {
			tb.Fatal(err)
		}
		if out, err := exec.Command(bin, shape, dirs[i]).CombinedOutput(); err != nil {
			tb.Fatalf("shapes %s: %v\n%s", shape, err, out)
		}
	}
	return dirs
}
