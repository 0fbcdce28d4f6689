// Package wgoracle reads webgrind's own reading of a file (its Reader's
// fields as JSON): oracle.json of the webgrind corpus cases, for the tests
// of decode/webgrind, formats/webgrind and cmd/hpcfs, and the
// oracle-webgrind/*.reader.json files of the callgrind corpus cases, for
// decode/callgrind. The oracle's types are declared once.
package wgoracle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A Call is one calledFrom or subCalls entry.
type Call struct {
	FunctionNr, Line, CallCount, SummedCallCost uint64
	Formatted                                   struct{ Percent string }
}

// A Function is one function record.
type Function struct {
	Nr                                                   int
	Address                                              int64
	FunctionName, File                                   string
	Line                                                 *uint32 // nil before version 7
	InvocationCount, SummedSelfCost, SummedInclusiveCost uint64
	CalledFromInfoCount, SubCallInfoCount                uint32
	SummedSelfCostRaw                                    uint64 // reader.json only: before webgrind's unit conversion
	Formatted                                            struct {
		Percent struct{ SummedSelfCost, SummedInclusiveCost string }
	}
	CalledFrom, SubCalls []Call
}

// An Oracle is a whole oracle.json.
type Oracle struct {
	Version          int
	HeadersPos       int64
	FunctionCount    int
	FunctionPos      []uint32
	HeaderLines      []string
	Headers          map[string]any // JSON numbers are float64
	Functions        []Function
	FormattedSummary *struct{ Msec float64 }
}

// Load reads dir/oracle.json.
func Load(t testing.TB, dir string) Oracle {
	t.Helper()
	return Read(t, filepath.Join(dir, "oracle.json"))
}

// Read reads one oracle file.
func Read(t testing.TB, path string) Oracle {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var o Oracle
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o
}
