package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	log "github.com/sirupsen/logrus"
)

// readyFDEnv names the descriptor on which a backgrounded `hpcfs mount`
// tells the command that started it how the mount went: "0 ok" once it is
// mounted, or an exit code and the error.
const readyFDEnv = "HPCFS_READY_FD"

// readyPipe is that descriptor in the background process, nil otherwise.
var readyPipe *os.File

func openReadyPipe() {
	if fd, err := strconv.Atoi(os.Getenv(readyFDEnv)); err == nil && fd > 2 {
		readyPipe = os.NewFile(uintptr(fd), "ready")
		os.Unsetenv(readyFDEnv)
	}
}

// reportReady tells the starting command the outcome of the mount; only
// the first report counts.
func reportReady(code int, msg string) {
	if readyPipe == nil {
		return
	}
	fmt.Fprintf(readyPipe, "%d %s\n", code, strings.ReplaceAll(msg, "\n", " "))
	readyPipe.Close()
	readyPipe = nil
}

// defaultLogFile is where a backgrounded mount logs:
// $XDG_STATE_HOME/hpcfs/hpcfs.log, by default ~/.local/state/hpcfs/hpcfs.log.
func defaultLogFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(os.TempDir(), "hpcfs.log")
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "hpcfs", "hpcfs.log")
}

// daemonize runs `hpcfs mount -f` with args in a new session, its output
// appended to logFile, and waits until it has mounted or failed. The exit
// code is the background process's verdict; a SIGINT or SIGTERM received
// meanwhile is passed on to it.
func daemonize(args []string, logFile string) error {
	if err := os.MkdirAll(filepath.Dir(logFile), 0o755); err != nil {
		return exitErr(exitFailure, "log file %s: %v", logFile, err)
	}
	lf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return exitErr(exitFailure, "log file: %v", err)
	}
	defer lf.Close()
	exe, err := os.Executable()
	if err != nil {
		return exitErr(exitFailure, "finding the hpcfs executable: %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return exitErr(exitFailure, "%v", err)
	}
	defer r.Close()
	child := exec.Command(exe, args...)
	child.Env = append(os.Environ(), readyFDEnv+"=3")
	child.ExtraFiles = []*os.File{w}
	child.Stdout, child.Stderr = lf, lf
	child.Dir = "/"
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		w.Close()
		return exitErr(exitFailure, "starting the mount process: %v", err)
	}
	w.Close()
	verdict := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		verdict <- line
	}()
	var line string
	select {
	case line = <-verdict:
	case s := <-stopSignals:
		child.Process.Signal(s)
		line = <-verdict
	}
	code, msg, ok := strings.Cut(strings.TrimSpace(line), " ")
	if !ok {
		err := child.Wait()
		return exitErr(exitFailure, "the mount process ended (%v) before mounting; see %s", err, logFile)
	}
	child.Process.Release()
	n, _ := strconv.Atoi(code)
	if n == 0 {
		log.Debugf("mounted in the background (pid %d); logs go to %s", child.Process.Pid, logFile)
		return nil
	}
	return &exitError{n, errors.New(msg)}
}
