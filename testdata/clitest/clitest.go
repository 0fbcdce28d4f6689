// Package clitest runs the hpcfs command in tests as a user would: built
// once per test binary, run to its exit, or started as a foreground mount
// that says when it is ready.
package clitest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/testdata"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Bin builds ./cmd/hpcfs once per test binary and returns its path.
func Bin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hpcfs-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "hpcfs")
		// -buildvcs=auto (over a GOFLAGS of -buildvcs=false) records the
		// commit when building in a clone, for --version.
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, "./cmd/hpcfs")
		cmd.Dir = filepath.Join(testdata.Dir(), "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building hpcfs: %v", buildErr)
	}
	return binPath
}

// Run runs hpcfs with args and returns its standard output; a non-zero
// exit fails the test.
func Run(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(Bin(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hpcfs %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Exit runs hpcfs with args and returns its exit code and standard error.
func Exit(t testing.TB, args ...string) (int, string) {
	t.Helper()
	return exit(t, 0, args)
}

// ExitWithin is Exit for a command that must end by itself: one still
// running after limit is killed and fails the test.
func ExitWithin(t testing.TB, limit time.Duration, args ...string) (int, string) {
	t.Helper()
	return exit(t, limit, args)
}

// exit runs hpcfs with args, killed after limit unless it is 0.
func exit(t testing.TB, limit time.Duration, args []string) (int, string) {
	t.Helper()
	bin := Bin(t) // built before the limit starts
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if limit > 0 {
		ctx, cancel = context.WithTimeout(ctx, limit)
	}
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("hpcfs %s: still running after %v\n%s", strings.Join(args, " "), limit, stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatalf("hpcfs %s: %v", strings.Join(args, " "), err)
	}
	return 0, stderr.String()
}

// A Server is a started `hpcfs ... mount -f` process.
type Server struct {
	Cmd *exec.Cmd
	// Ready is the line the server wrote on its readiness pipe: "0
	// mounted" once mounted (after the kernel's INIT and go-fuse's own
	// first requests), else its exit code and why; empty if it exited
	// without a word.
	Ready  string
	Stderr *bytes.Buffer
	// Exited receives the process's exit, once.
	Exited <-chan error
}

// Start runs hpcfs with args (which hold "mount -f") and returns once the
// server has said how the mount went, or has exited. env is added to the
// process's environment.
func Start(t testing.TB, env []string, args ...string) *Server {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Bin(t), args...)
	cmd.Env = append(append(os.Environ(), env...), "HPCFS_READY_FD=3")
	cmd.ExtraFiles = []*os.File{w}
	s := &Server{Cmd: cmd, Stderr: new(bytes.Buffer)}
	cmd.Stderr = s.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s.Exited = exited
	s.Ready, _ = bufio.NewReader(r).ReadString('\n')
	r.Close()
	return s
}

// Mounted reports whether the server said it mounted.
func (s *Server) Mounted() bool { return strings.HasPrefix(s.Ready, "0 mounted") }
