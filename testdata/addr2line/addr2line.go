// Package addr2line runs binutils' addr2line -a -f -i -C on addresses
// and reads its answers: the oracle of the symbol tests.
package addr2line

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// A Frame is one function/location pair addr2line prints.
type Frame struct {
	Function string // "??" when unknown
	File     string // "??" when unknown
	Line     int    // 0 when unknown ("?")
}

// Lookup gives, for each address, the frames addr2line -f -i -C prints
// for it, innermost first.
func Lookup(bin string, addrs []uint64) ([][]Frame, error) {
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	cmd := exec.Command("addr2line", "-a", "-f", "-i", "-C", "-e", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("addr2line -e %s: %v", bin, err)
	}
	var res [][]Frame
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "0x") {
			return nil, fmt.Errorf("addr2line: expected an address at line %d: %q", i+1, lines[i])
		}
		i++
		var fs []Frame
		for i+1 < len(lines) && !strings.HasPrefix(lines[i], "0x") {
			fs = append(fs, parse(lines[i], lines[i+1]))
			i += 2
		}
		res = append(res, fs)
	}
	if len(res) != len(addrs) {
		return nil, fmt.Errorf("addr2line: %d answers for %d addresses", len(res), len(addrs))
	}
	return res, nil
}

func parse(fn, loc string) Frame {
	if k := strings.Index(loc, " (discriminator "); k >= 0 {
		loc = loc[:k]
	}
	f := Frame{Function: fn, File: loc}
	if k := strings.LastIndexByte(loc, ':'); k >= 0 {
		f.File = loc[:k]
		f.Line, _ = strconv.Atoi(loc[k+1:])
	}
	return f
}
