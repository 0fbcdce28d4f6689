// Package program compiles small C and C++ programs with gcc/g++ -O2 -g
// (with inlined functions) for tests that name addresses: a PIE and a
// non-PIE, a stripped copy with a separate debug file (found by
// .gnu_debuglink or by build-id) and split-DWARF builds (DWARF 5 and 4,
// with .dwo files or packed into a .dwp).
package program

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A Variant is one way to build a program.
type Variant string

// The variants.
const (
	CPIE     Variant = "c-pie"     // C, gcc -O2 -g -fPIE -pie
	CNoPIE   Variant = "c-nopie"   // C, gcc -O2 -g -fno-pie -no-pie
	CXX      Variant = "cxx"       // C++, g++ -O2 -g
	CXXLink  Variant = "cxx-link"  // C++, stripped, debug file beside it named by .gnu_debuglink
	CXXID    Variant = "cxx-id"    // C++, stripped, debug file under DebugRoot/.build-id
	CXXSplit Variant = "cxx-split" // C++, g++ -O2 -g -gsplit-dwarf
	// C++, g++ -O2 -g -gdwarf-4 -gsplit-dwarf: the GNU split DWARF that
	// came before DWARF 5's.
	CXXSplit4 Variant = "cxx-split4"
	// C++, -gsplit-dwarf packed with llvm-dwp into prog.dwp (a DWARF 5
	// package; binutils' dwp does not pack DWARF 5), .dwo files deleted.
	CXXDWP Variant = "cxx-dwp"
	// C++, -gdwarf-4 -gsplit-dwarf packed with binutils' dwp (its GNU
	// version 2 index), .dwo files deleted.
	CXXDWP4 Variant = "cxx-dwp4"
)

// Variants is every variant.
var Variants = []Variant{CPIE, CNoPIE, CXX, CXXLink, CXXID, CXXSplit, CXXSplit4, CXXDWP, CXXDWP4}

// Split says v is a split-DWARF build (its Full is its oracle).
func (v Variant) Split() bool {
	return v == CXXSplit || v == CXXSplit4 || v == CXXDWP || v == CXXDWP4
}

// packer is the tool that packs v's .dwo files into a .dwp, "" for none.
func (v Variant) packer() string {
	switch v {
	case CXXDWP:
		return "llvm-dwp"
	case CXXDWP4:
		return "dwp"
	}
	return ""
}

// A Binary is a built program.
type Binary struct {
	Variant   Variant
	Path      string // the executable
	Debug     string // its separate debug file, "" when none
	DebugRoot string // for CXXID: the folder to use as /usr/lib/debug
	Source    string // the source file
	Full      string // for split builds: the same program built without -gsplit-dwarf
	DWP       string // for CXXDWP, CXXDWP4: the package
}

const cSource = `#include <stdio.h>
#include <stdlib.h>

static inline int square(int x) { return x * x; }

static inline int sum_squares(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += square(a[i]);
	return s;
}

__attribute__((noinline)) int work(int *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = rand() % 100;
	return sum_squares(a, n);
}

__attribute__((noinline)) static long helper(long k)
{
	long r = 1;
	while (k-- > 0)
		r = r * 3 % 1000003;
	return r;
}

int main(int argc, char **argv)
{
	int a[64];
	int n = argc > 1 ? atoi(argv[1]) : 64;
	if (n > 64)
		n = 64;
	printf("%d %ld\n", work(a, n), helper(n * 1000));
	return 0;
}
`

const cxxSource = `#include <cstdio>
#include <string>
#include <vector>

namespace hpc {
template <typename T> struct Acc {
	T total{};
	void add(T v) { total += v * v; }
};

template <typename T> T reduce(const std::vector<T> &v)
{
	Acc<T> a;
	for (auto x : v)
		a.add(x);
	return a.total;
}

class Grid {
public:
	explicit Grid(int n);
	double step(double dt);

private:
	std::vector<double> cells;
};

Grid::Grid(int n) : cells(n, 1.0) {}

double Grid::step(double dt)
{
	for (auto &c : cells)
		c = c * (1 - dt) + dt;
	return reduce(cells);
}
} // namespace hpc

#ifdef SECOND
long second(const std::vector<int> &v);
#endif

__attribute__((noinline)) long count(const std::string &s)
{
	long k = 0;
	for (char c : s)
		k += c == 'a';
	return k;
}

int main(int argc, char **argv)
{
	hpc::Grid g(argc * 100);
	double r = 0;
	for (int i = 0; i < 10; i++)
		r += g.step(0.1);
	std::vector<int> v(argc * 10, 3);
	std::printf("%g %d %ld\n", r, hpc::reduce(v), count(argv[0]));
#ifdef SECOND
	std::printf("%ld\n", second(v));
#endif
	return 0;
}
`

// cxxSecond is a second compile unit of the split-DWARF builds (but
// CXXDWP), called from main: a function with inlined calls of its own,
// whose unit has a base address (low_pc) that its range lists are
// offsets from.
const cxxSecond = `#include <vector>

static inline long tri(long n) { return n * (n + 1) / 2; }

__attribute__((noinline)) long second(const std::vector<int> &v)
{
	if (v.empty())
		return 0;
	return tri(long(v.size())) * 7 + tri(v.front()) - tri(v.back());
}
`

// Build compiles variant v in the folder dir/v: the program is named
// prog, its source prog.c or prog.cc.
func Build(dir string, v Variant) (Binary, error) {
	dir = filepath.Join(dir, string(v))
	b := Binary{Variant: v, Path: filepath.Join(dir, "prog")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return b, err
	}
	cc, src, ext := "g++", cxxSource, ".cc"
	if v == CPIE || v == CNoPIE {
		cc, src, ext = "gcc", cSource, ".c"
	}
	b.Source = filepath.Join(dir, "prog"+ext)
	if err := os.WriteFile(b.Source, []byte(src), 0o644); err != nil {
		return b, err
	}
	args := []string{"-O2", "-g", "-Wl,--build-id"}
	switch v {
	case CPIE:
		args = append(args, "-fPIE", "-pie")
	case CNoPIE:
		args = append(args, "-fno-pie", "-no-pie")
	}
	srcs := []string{b.Source}
	if v.Split() && v != CXXDWP {
		// A second unit: a package or a set of .dwo files holds one
		// split unit per compile unit, found by the skeleton's dwo_id.
		// (Not for llvm-dwp: Debian's llvm-dwp 14 loops forever on the
		// .dwo of this unit, or of any small unit tried.)
		second := filepath.Join(dir, "second.cc")
		if err := os.WriteFile(second, []byte(cxxSecond), 0o644); err != nil {
			return b, err
		}
		srcs = append(srcs, second)
		args = append(args, "-DSECOND")
	}
	compile := func(out string, extra ...string) error {
		return run(dir, cc, append(append(append(append([]string(nil), args...), extra...), "-o", out), srcs...)...)
	}
	if v == CXXSplit4 || v == CXXDWP4 {
		args = append(args, "-gdwarf-4")
	}
	if v.Split() {
		// addr2line reads no line table of a split-DWARF build: the
		// same build without -gsplit-dwarf (the same code) is its oracle.
		b.Full = filepath.Join(dir, "prog-full")
		if err := compile(b.Full); err != nil {
			return b, err
		}
		if err := compile(b.Path, "-gsplit-dwarf"); err != nil {
			return b, err
		}
		if v.packer() == "" {
			return b, nil
		}
		b.DWP = b.Path + ".dwp"
		if err := run(dir, v.packer(), "-e", b.Path, "-o", b.DWP); err != nil {
			return b, err
		}
		dwos, err := filepath.Glob(filepath.Join(dir, "*.dwo"))
		if err == nil && len(dwos) == 0 {
			err = fmt.Errorf("%s left no .dwo file", b.Path)
		}
		for _, f := range dwos {
			if err == nil {
				err = os.Remove(f)
			}
		}
		return b, err
	}
	if err := compile(b.Path); err != nil {
		return b, err
	}
	switch v {
	case CXXLink:
		b.Debug = b.Path + ".debug"
		if err := stripTo(dir, b.Path, b.Debug); err != nil {
			return b, err
		}
		return b, run(dir, "objcopy", "--add-gnu-debuglink="+b.Debug, b.Path)
	case CXXID:
		id, err := BuildID(b.Path)
		if err != nil {
			return b, err
		}
		b.DebugRoot = filepath.Join(dir, "debug-root")
		b.Debug = filepath.Join(b.DebugRoot, ".build-id", id[:2], id[2:]+".debug")
		if err := os.MkdirAll(filepath.Dir(b.Debug), 0o755); err != nil {
			return b, err
		}
		return b, stripTo(dir, b.Path, b.Debug)
	}
	return b, nil
}

// stripTo moves the debug information and symbols of bin to debug.
func stripTo(dir, bin, debug string) error {
	if err := OnlyDebug(bin, debug); err != nil {
		return err
	}
	return run(dir, "strip", "--strip-all", bin)
}

// OnlyDebug writes the debug information and symbols of bin to debug, as
// a separate debug file.
func OnlyDebug(bin, debug string) error {
	return run(filepath.Dir(bin), "objcopy", "--only-keep-debug", bin, debug)
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// BuildID is the GNU build-id of an ELF file, in hex.
func BuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return "", fmt.Errorf("%s: no build-id", path)
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		return "", fmt.Errorf("%s: bad build-id note", path)
	}
	return fmt.Sprintf("%x", b[16:]), nil
}

// Text is the address range of the .text section of the binary at path
// (of its debug file's headers when stripped: both keep the section).
func Text(path string) (lo, hi uint64, err error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil {
		return 0, 0, fmt.Errorf("%s: no .text", path)
	}
	return s.Addr, s.Addr + s.Size, nil
}

// Require skips t without gcc, g++ and binutils (and llvm-dwp for
// CXXDWP), except under CI=true, whose .ci/setup installs them, where it
// fails t.
func Require(t testing.TB, vs ...Variant) {
	t.Helper()
	tools := []string{"gcc", "g++", "addr2line", "objcopy", "strip"}
	for _, v := range vs {
		if p := v.packer(); p != "" {
			tools = append(tools, p)
		}
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s missing (.ci/setup installs it)", tool)
			}
			t.Skipf("%s missing", tool)
		}
	}
}

// BuildT builds variant v in a temporary folder of t (see Require).
func BuildT(t testing.TB, v Variant) Binary {
	t.Helper()
	Require(t, v)
	b, err := Build(t.TempDir(), v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
