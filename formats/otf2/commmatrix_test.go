package otf2

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestCommMatrix checks comm-matrix.csv against otf2-print's text on every
// corpus case: summed over senders it gives each receiver rank's messages
// and bytes as the MPI_SEND and MPI_ISEND lines name them, summed over
// receivers each sender rank's as the MPI_RECV and MPI_IRECV lines name
// them (every message of the corpus is matched).
func TestCommMatrix(t *testing.T) {
	line := regexp.MustCompile(`(?m)^MPI_I?(SEND|RECV) .*  (?:Receiver|Sender): (\d+) .*Communicator: "([^"]*)" <\d+>, Tag: \d+, Length: (\d+)(?:, Request: \d+)?$`)
	type key struct {
		comm string
		rank uint64
	}
	type sums struct{ messages, bytes uint64 }
	checked := 0
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			dir := testdata.Corpus(t, "otf2", name)
			// from the oracle: per receiver (MPI_SEND lines) and per sender (MPI_RECV lines)
			want := map[string]map[key]sums{"SEND": {}, "RECV": {}}
			for _, m := range line.FindAllStringSubmatch(string(oracle(t, dir, "oracle-otf2-print.txt")), -1) {
				rank, _ := strconv.ParseUint(m[2], 10, 64)
				n, _ := strconv.ParseUint(m[4], 10, 64)
				s := want[m[1]][key{m[3], rank}]
				want[m[1]][key{m[3], rank}] = sums{s.messages + 1, s.bytes + n}
			}
			src := testdata.Open(t, Open, dir)
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "comm-matrix.csv"))
			if got := len(rows[0]); got != 5 || rows[0][0] != "communicator" || rows[0][4] != "bytes" {
				t.Fatalf("header %v", rows[0])
			}
			got := map[string]map[key]sums{"SEND": {}, "RECV": {}}
			for _, r := range rows[1:] {
				sender, _ := strconv.ParseUint(r[1], 10, 64)
				receiver, _ := strconv.ParseUint(r[2], 10, 64)
				n, _ := strconv.ParseUint(r[3], 10, 64)
				b, _ := strconv.ParseUint(r[4], 10, 64)
				for side, rank := range map[string]uint64{"SEND": receiver, "RECV": sender} {
					s := got[side][key{r[0], rank}]
					got[side][key{r[0], rank}] = sums{s.messages + n, s.bytes + b}
				}
			}
			for side := range want {
				if len(got[side]) != len(want[side]) {
					t.Errorf("%s: %d ranks in comm-matrix.csv, %d in otf2-print", side, len(got[side]), len(want[side]))
				}
				for k, w := range want[side] {
					if got[side][k] != w {
						t.Errorf("%s %v: comm-matrix.csv %+v, otf2-print %+v", side, k, got[side][k], w)
					}
				}
			}
			checked += len(want["SEND"])
		})
	}
	if checked == 0 && !t.Skipped() {
		t.Error("no corpus case has point-to-point messages")
	}
}
