package render

// Options are the settings of one mount that its views read: they travel
// with the source (vfs.Source.Options) and reach each view when the tree
// binds it (Binder), never through process globals.
type Options struct {
	// IndexDir is where sizes and checkpoints of big views are kept
	// between mounts; "" keeps none.
	IndexDir string
	// IndexLimit is the most bytes the files kept in the index folder
	// may take (the oldest go first past it: Kept); 0 means
	// DefaultIndexLimit.
	IndexLimit int64
	// WindowLimit is the size in bytes above which a trace.json is also
	// split into time windows; 0 means the default of render/interchange.
	WindowLimit int64
	// SymbolDirs are the folders where a binary that a profile names is
	// looked for by base name when it is not at the recorded path
	// (--symbols, $HPCFS_SYMBOLS): internal/symbols.For. The binaries
	// found are inputs of the views that show their names (ExtraInputs).
	SymbolDirs []string
}

// A Binding is what the tree tells a view about itself before it is
// served: the mount's options, the view's identity in the on-disk index
// (derived from the format, the view's path and the identity of the
// source's input files) and where its malformed-input error goes (a line
// of the source's _errors.txt naming the view's path).
type Binding struct {
	Options Options
	Key     string      // "" keeps no index
	Report  func(error) // nil drops the error
}

// A Binder is a view that takes its identity from the tree it is served
// in. The tree calls Bind once, before the view is first sized or read.
type Binder interface {
	Bind(Binding)
}
