package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Time_(10ns)_inc", "time_10ns_inc"},
		{"Time_(10ns)", "time_10ns"},
		{"CPUTIME (sec):Sum (I)", "cputime_sec_sum_i"},
		{"Ir", "ir"},
		{"  Memory  (bytes) ", "memory_bytes"},
		{"ünïcode-x", "n_code_x"},
		{"", "metric"},
		{"()", "metric"},
		{"2nd", "metric_2nd"},
		{"ORDER", "metric_order"},
		{"order_count", "order_count"},
		{"a__b", "a_b"},
	} {
		if got := Name(tc.in, "metric"); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	ok := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	for _, s := range []string{"x(y) z", "\x00\xff", "a.b/c", "Σ sum", "1", "select", "\"q\"", string(make([]byte, 300))} {
		if got := Name(s, "m"); !ok.MatchString(got) || len(got) > 102 {
			t.Errorf("Name(%q) = %q: not a plain snake_case name", s, got)
		}
	}
}

func TestUniquer(t *testing.T) {
	u := NewUniquer("README.txt")
	var got []string
	for _, n := range []string{"a", "a", "a_2", "a", "x.csv", "x.csv", "README.txt", ".hidden", ".hidden"} {
		got = append(got, u.Unique(n))
	}
	want := []string{"a", "a_2", "a_2_2", "a_3", "x.csv", "x_2.csv", "README_2.txt", ".hidden", ".hidden_2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("names %q, want %q", got, want)
			break
		}
	}
}

func TestSafeNames(t *testing.T) {
	got := FileNames([]string{"a/b", "..", "", "x.csv", "x.csv", "x.csv"})
	want := []string{"a_b", "_..", "_", "x.csv", "x~2.csv", "x~3.csv"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("FileNames = %q, want %q", got, want)
	}
	// A long name keeps its extension: the stem is cut (UTF-8 intact).
	long := strings.Repeat("é", 300)
	for _, ext := range []string{".json", ".pftrace"} {
		got := FileNames([]string{long + ext, long + ext})
		for _, n := range got {
			if !strings.HasSuffix(n, ext) || len(n) > 210 || !utf8.ValidString(n) {
				t.Errorf("FileNames(long%s) = %q (%d bytes): want a valid name <= 210 bytes ending %s", ext, n, len(n), ext)
			}
		}
		if got[0] == got[1] {
			t.Errorf("two long names are both %q", got[0])
		}
	}
	if got := SafeName("a\n\r\x00\xff" + strings.Repeat("x", 300)); len(got) != 200 || strings.ContainsAny(got, "\n\r\x00") || !utf8.ValidString(got) {
		t.Errorf("SafeName of a long name with control bytes = %q", got)
	}
}
