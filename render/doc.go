// Package render turns decoded records into the bytes of generated files.
//
// It has two halves. The append helpers (AppendFloat, AppendCSVField,
// AppendHex, ...) write numbers and fields by the project's text and CSV
// conventions into a reused []byte, without fmt. The views (Bytes, Stream,
// Passthrough) give every generated file what DESIGN.md calls the view
// contract: an exact size, random access that resumes from a checkpoint,
// bounded memory, lazy sizing shared by concurrent callers, and
// deterministic output.
//
// render knows nothing of formats: a format supplies a Generator, render
// sizes, indexes and serves it.
package render
