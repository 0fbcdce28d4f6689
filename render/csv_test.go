package render

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestCSVFieldsMatchEncodingCSV(t *testing.T) {
	fields := []string{"", "plain", "a,b", `say "hi"`, "two\nlines", " lead", "\tx", `\.`, "naïve", "cr\r", "#"}
	var want bytes.Buffer
	w := csv.NewWriter(&want)
	w.Write(fields)
	w.Flush()
	if got := AppendCSVRow(nil, fields...); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("AppendCSVRow = %q, encoding/csv = %q", got, want.Bytes())
	}
}
