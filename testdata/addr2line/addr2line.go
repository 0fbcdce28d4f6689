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
	return LookupWith("addr2line", bin, addrs)
}

// LookupWith is Lookup with another tool of the same options and output
// (llvm-addr2line: a second oracle where binutils' is wrong).
func LookupWith(tool, bin string, addrs []uint64) ([][]Frame, error) {
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	cmd := exec.Command(tool, "-a", "-f", "-i", "-C", "-e", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -e %s: %v", tool, bin, err)
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

// Columns are what the function, file, line and inlined columns of a
// hpcfs view hold for frames addr2line printed: the innermost frame's
// name and line ("" for ?? and line 0), and the frames it is inlined in,
// outermost first, as "function (file:line)" joined by ';'.
func Columns(fs []Frame) (function, file, line, inlined string) {
	if len(fs) == 0 || fs[0].Function == "??" {
		return "", "", "", ""
	}
	function = fs[0].Function
	if fs[0].Line > 0 {
		file, line = fs[0].File, strconv.Itoa(fs[0].Line)
	}
	var chain []string
	for i := len(fs) - 1; i >= 1; i-- {
		chain = append(chain, fmt.Sprintf("%s (%s:%d)", fs[i].Function, fs[i].File, fs[i].Line))
	}
	return function, file, line, strings.Join(chain, ";")
}

// Known lists the addresses of [lo, hi) that addr2line places on a
// source line (instructions of functions, not the padding between),
// every step-th of them, with their frames.
func Known(bin string, lo, hi uint64, step int) ([]uint64, [][]Frame, error) {
	var all []uint64
	for a := lo; a < hi; a++ {
		all = append(all, a)
	}
	fs, err := Lookup(bin, all)
	if err != nil {
		return nil, nil, err
	}
	var addrs []uint64
	var frames [][]Frame
	for i, f := range fs {
		if len(f) > 0 && f[0].Line > 0 && i%step == 0 {
			addrs = append(addrs, all[i])
			frames = append(frames, f)
		}
	}
	return addrs, frames, nil
}
