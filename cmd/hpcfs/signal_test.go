package main

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
)

// TestSIGTERMAtAnyMoment sends SIGTERM to `hpcfs mount` at a random moment
// of its start-up, with the cores kept busy, and checks every time that the
// process exits 0 and leaves no mount behind.
func TestSIGTERMAtAnyMoment(t *testing.T) {
	fsnodetest.Require(t)
	bin := hpcfsBin(t)
	rounds := 50
	if testing.Short() {
		rounds = 10
	}

	ctx, stopLoad := context.WithCancel(context.Background())
	var load sync.WaitGroup
	for range runtime.NumCPU() {
		load.Add(1)
		go func() {
			defer load.Done()
			for ctx.Err() == nil {
				for i := 0; i < 1<<20; i++ {
				}
			}
		}()
	}
	defer func() { stopLoad(); load.Wait() }()

	rng := rand.New(rand.NewPCG(1, 2))
	for i := range rounds {
		mnt := t.TempDir()
		delay := time.Duration(rng.IntN(300)) * time.Millisecond
		cmd := exec.Command(bin, "--log-level", "debug", "mount", "-f", mnt)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Start-up counts from the debug line that opens runMount: before it the
		// Go runtime is still starting and a signal meets its default action
		// (no mount exists yet either).
		lines := bufio.NewScanner(stderr)
		for lines.Scan() && !strings.Contains(lines.Text(), "starting the mount") {
		}
		go io.Copy(io.Discard, stderr)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("round %d (SIGTERM after %v): exit %v", i, delay, err)
		}
		if mounted(mnt) {
			lazyUnmount(mnt)
			t.Errorf("round %d (SIGTERM after %v): mount left behind", i, delay)
		}
	}
}
