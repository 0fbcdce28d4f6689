package render

import "testing"

func TestAppendReadable(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0.028831000000000002, "0.028831"}, {0.262069, "0.262069"}, {808383, "808383"},
		{1234567.891, "1234568"}, {3.14159265, "3.14159"}, {0, "0"}, {-2.5, "-2.5"},
		{0.1 + 0.2, "0.3"}, {1e-7, "1e-07"}, {123.4500001, "123.45"}, {99.99999999, "100"},
	} {
		if got := string(AppendReadable(nil, c.f)); got != c.want {
			t.Errorf("AppendReadable(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
