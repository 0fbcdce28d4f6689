// Package lotest opens CSV files in LibreOffice (headless) the way a user
// would, saves them as xlsx, converts that back to CSV and compares what
// the spreadsheet held with the original rows and columns.
package lotest

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Require returns the libreoffice command. Without it the test is
// skipped, except under CI=true, where it fails: CI installs it.
func Require(t testing.TB) string {
	t.Helper()
	lo, err := exec.LookPath("libreoffice")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("libreoffice is not installed, and CI must run the spreadsheet tests (apt-get install libreoffice-calc-nogui)")
		}
		t.Skip("libreoffice not installed")
	}
	return lo
}

// csvFilter is LibreOffice's CSV filter: comma, double quote, UTF-8, from
// line 1.
const csvFilter = "44,34,76,1"

// RoundTrip converts every file to xlsx and back to CSV in two LibreOffice
// runs and returns the rows LibreOffice wrote back, by input path. It
// fails the test when files is empty: a test that found no CSV to check
// has checked nothing.
func RoundTrip(t testing.TB, files []string) map[string][][]string {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no CSV file to convert")
	}
	lo := Require(t)
	work := t.TempDir()
	in, xlsx, back := filepath.Join(work, "in"), filepath.Join(work, "xlsx"), filepath.Join(work, "back")
	for _, d := range []string{in, xlsx, back} {
		os.MkdirAll(d, 0o755)
	}
	var inputs, sheets []string
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("f%04d", i)
		p := filepath.Join(in, name+".csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
		sheets = append(sheets, filepath.Join(xlsx, name+".xlsx"))
	}
	run := func(args ...string) {
		t.Helper()
		// Its own profile, and its own process group: soffice starts
		// soffice.bin, which may outlive it holding the output pipe;
		// the whole group is killed once the command returns (and at
		// cleanup), so that nothing is left to hang the test or the
		// next run.
		cmd := exec.Command(lo, append([]string{"-env:UserInstallation=file://" + filepath.Join(work, "profile"), "--headless"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.WaitDelay = 10 * time.Second // for the pipe, once soffice has exited
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("libreoffice: %v", err)
		}
		killGroup := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		t.Cleanup(killGroup)
		err := cmd.Wait()
		killGroup()
		if err != nil {
			t.Fatalf("libreoffice %s: %v\n%s", strings.Join(args[:3], " "), err, out.Bytes())
		}
	}
	run(append([]string{"--infilter=CSV:" + csvFilter, "--convert-to", "xlsx", "--outdir", xlsx}, inputs...)...)
	run(append([]string{"--convert-to", "csv:Text - txt - csv (StarCalc):" + csvFilter, "--outdir", back}, sheets...)...)
	out := map[string][][]string{}
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join(back, fmt.Sprintf("f%04d.csv", i)))
		if err != nil {
			t.Fatalf("%s: LibreOffice wrote nothing back: %v", f, err)
		}
		out[f] = Parse(t, data)
	}
	return out
}

// Parse reads CSV rows, allowing rows of different lengths.
func Parse(t testing.TB, data []byte) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Check round-trips files through LibreOffice and fails the test where the
// spreadsheet's rows, columns or cell values differ from the files'.
// Numbers compare as numbers (LibreOffice may write 1e-07 as 1E-07, or
// drop a trailing .0); text compares exactly, but for TRUE/FALSE case.
func Check(t testing.TB, files []string) {
	t.Helper()
	back := RoundTrip(t, files)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		want, got := Parse(t, data), back[f]
		if len(got) != len(want) {
			t.Errorf("%s: LibreOffice read %d rows, want %d", f, len(got), len(want))
			continue
		}
		for r := range want {
			if len(got[r]) != len(want[r]) {
				t.Errorf("%s row %d: %d columns, want %d", f, r+1, len(got[r]), len(want[r]))
				continue
			}
			for c := range want[r] {
				if !SameCell(got[r][c], want[r][c]) {
					t.Errorf("%s row %d column %d: LibreOffice has %q, file has %q", f, r+1, c+1, got[r][c], want[r][c])
				}
			}
		}
	}
}

// number matches numbers as hpcfs writes them (render.AppendFloat and
// strconv integers). Anything else, such as "0012" or "1e10" in a hex
// column, is text and must come back as written.
var number = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?(e[+-][0-9]+)?$`)

// SameCell reports whether a cell LibreOffice wrote back holds the value
// of the original field: numbers compare as numbers (to the 15 digits a
// spreadsheet keeps), text exactly, but for the case of TRUE and FALSE.
func SameCell(got, want string) bool {
	if got == want {
		return true
	}
	if !number.MatchString(want) {
		return strings.EqualFold(got, want) && (strings.EqualFold(want, "true") || strings.EqualFold(want, "false"))
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return math.Abs(g-w) <= 1e-14*math.Max(1, math.Abs(w))
}
