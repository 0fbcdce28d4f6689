package ovni

import (
	"fmt"
	"testing"
)

func TestAppendPaddedLikePrintf(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 999999999, 1000000000, -999999999, 12345, -123456789, 1 << 62, -1 << 63} {
		if got, want := string(appendPadded([]byte("x"), v, false)), fmt.Sprintf("x%10d", v); got != want {
			t.Errorf("%q, want %q", got, want)
		}
		if got, want := string(appendPadded([]byte("x"), v, true)), fmt.Sprintf("x%+10d", v); got != want {
			t.Errorf("%q, want %q", got, want)
		}
		if paddedLen(v, false) != int64(len(fmt.Sprintf("%10d", v))) || paddedLen(v, true) != int64(len(fmt.Sprintf("%+10d", v))) {
			t.Errorf("paddedLen(%d) wrong", v)
		}
	}
}
