package render

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// TestCSVFieldsMatchEncodingCSV: fields are quoted as encoding/csv
// quotes them (control characters but tab and LF are escaped first, see
// TestEscapeNames).
func TestCSVFieldsMatchEncodingCSV(t *testing.T) {
	fields := []string{"", "plain", "a,b", `say "hi"`, "two\nlines", " lead", "\tx", `\.`, "naïve", "cr\\x0d", "#"}
	var want bytes.Buffer
	w := csv.NewWriter(&want)
	w.Write(fields)
	w.Flush()
	if got := AppendCSVRow(nil, fields...); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("AppendCSVRow = %q, encoding/csv = %q", got, want.Bytes())
	}
}
