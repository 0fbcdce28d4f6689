package hpcdb

import (
	"bytes"
	"testing"
)

// The node list is made at its size from a bounded estimate: exact for a
// generated experiment.xml, at most one node per 32 bytes for a file of bare
// tags.
func TestContextTagEstimate(t *testing.T) {
	b := []byte(`<SecCallPathProfileData><PF i="2" n="1" lm="1" f="1" l="3"><C i="3" l="4"><S i="4" l="5"/></C><L i="5" l="6"></L></PF></SecCallPathProfileData>`)
	if got := countContextTags(b); got != 4 {
		t.Errorf("estimate %d, want 4", got)
	}
	bare := bytes.Repeat([]byte("<C "), 1<<20)
	if got := countContextTags(bare); got > len(bare)/32 {
		t.Errorf("estimate %d for %d bytes of bare tags", got, len(bare))
	}
}
