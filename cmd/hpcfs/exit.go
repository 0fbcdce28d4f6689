package main

import "fmt"

// Exit codes are part of the command's interface: scripts test them.
const (
	exitFailure    = 1 // anything not listed below
	exitUsage      = 2 // bad arguments or flags
	exitSource     = 3 // the source is missing or of no supported format
	exitMountpoint = 4 // the mountpoint is missing, not a directory or not empty
	exitInUse      = 5 // the mountpoint is already mounted
	exitMount      = 6 // the kernel refused the mount
	exitNotFound   = 7 // ls/cat: no such path in the tree
	exitPermission = 8 // the source (or a folder on its path) may not be read
)

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitErr(code int, format string, args ...any) error {
	return &exitError{code, fmt.Errorf(format, args...)}
}

func usageErr(err error) error { return &exitError{exitUsage, err} }
