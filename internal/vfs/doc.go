// Package vfs builds the virtual trees that formats expose: directories of
// generated files (render.View) served as an io/fs.FS, plus what every
// mounted source shares: the Source and Format types, README.txt,
// _errors.txt, the raw/ passthrough and safe file names.
package vfs
