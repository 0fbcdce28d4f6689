package render

import (
	"errors"
	"fmt"
	"os"
)

// A Saved is a result that a view computes from its whole input (the
// sums of a trace summary) kept beside the on-disk index, so that the
// next mount of the same input reads it instead of passing over the input
// again. It lives under the view's index key (Binding.Key: the format,
// the view's path and the identity of the source's inputs) and the
// running build, as indexes do; the zero value (no index) keeps nothing.
type Saved struct {
	path   string
	limit  int64       // the index folder's limit (Options.IndexLimit)
	report func(error) // the binding's: nil drops the error
}

// SavedFor is the saved result called name of the view bound with b.
func SavedFor(b Binding, name string) Saved {
	if b.Key == "" {
		return Saved{}
	}
	return Saved{indexPath(b.Options.IndexDir, b.Key+"\x00saved\x00"+name), b.Options.IndexLimit, b.Report}
}

// Load returns the bytes stored by Store, nil when there are none or
// their seal does not match (a damaged or forged file is removed and
// reported; the result is computed again). The caller still checks every
// field it decodes.
func (s Saved) Load() []byte {
	if s.path == "" {
		return nil
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return nil
	}
	if b, err = unseal(s.path, b); err != nil {
		s.discard(err)
		return nil
	}
	return b
}

// Store keeps b, sealed, for the next Load.
func (s Saved) Store(b []byte) error {
	if s.path == "" {
		return nil
	}
	b, err := seal(s.path, append([]byte(nil), b...))
	if err == nil {
		err = writeAtomic(s.path, b, s.limit)
	}
	if err != nil {
		return fmt.Errorf("saving %s: %w", s.path, err)
	}
	return nil
}

// Discard removes the saved bytes (Load found them inconsistent).
func (s Saved) Discard() { s.discard(errors.New("its fields do not hold together")) }

func (s Saved) discard(why error) {
	if s.path == "" {
		return
	}
	os.Remove(s.path)
	if s.report != nil {
		s.report(fmt.Errorf("%w %s: %v; removed, computed again", errBadIndex, s.path, why))
	}
}
