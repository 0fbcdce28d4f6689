package vfs

import (
	"strconv"
	"strings"
)

// Count writes n and the noun, plural unless n is 1: Count(1, "loom") is
// "1 loom", Count(3, "process") is "3 processes".
func Count(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	if n == 1 {
		return s
	}
	if strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey") {
		return s[:len(s)-1] + "ies"
	}
	for _, end := range []string{"s", "sh", "ch", "x"} {
		if strings.HasSuffix(noun, end) {
			return s + "es"
		}
	}
	return s + "s"
}
