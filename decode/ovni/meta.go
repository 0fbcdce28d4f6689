package ovni

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// StreamMeta is a thread's JSON metadata: thread.<T>.json (version 2) or
// thread.<T>/stream.json (version 3, which also carries the process and
// loom fields that version 2 keeps in metadata.json).
type StreamMeta struct {
	Version int `json:"version"`
	Ovni    struct {
		Lib struct {
			Version string `json:"version"`
			Commit  string `json:"commit"`
		} `json:"lib"`
		Part     string  `json:"part"`
		TID      *int64  `json:"tid"`
		PID      *int64  `json:"pid"`
		Loom     *string `json:"loom"`
		AppID    *int64  `json:"app_id"`
		Rank     *int64  `json:"rank"`
		NRanks   *int64  `json:"nranks"`
		Finished *int64  `json:"finished"`
		LoomCPUs []CPU   `json:"loom_cpus"`
	} `json:"ovni"`
	// Fields is every scalar of the document in order, keyed by its path
	// (object keys and array indexes joined by dots).
	Fields []Field `json:"-"`
}

// A Field is one scalar of a JSON document: its dotted path and its value
// (strings unquoted, other scalars as written).
type Field struct {
	Key, Value string
}

// Require lists the ovni.require entries ("model version") in order.
func (m *StreamMeta) Require() []string {
	var out []string
	for _, f := range m.Fields {
		if name, ok := strings.CutPrefix(f.Key, "ovni.require."); ok {
			out = append(out, name+" "+f.Value)
		}
	}
	return out
}

// ParseStreamMeta decodes a thread's JSON metadata. name is used in
// errors. A malformed document gives the fields before the damage.
func ParseStreamMeta(data []byte, name string) (*StreamMeta, error) {
	m := &StreamMeta{}
	fields, ferr := flatten(data)
	m.Fields = fields
	if ferr != nil {
		return m, decode.ErrAt("ovni", name, ferr.off, "malformed JSON: "+ferr.msg, nil, nil)
	}
	if err := json.Unmarshal(data, m); err != nil {
		return m, decode.ErrAt("ovni", name, 0, "unexpected JSON value: "+err.Error(), nil, nil)
	}
	switch {
	case m.Version == 0:
		return m, decode.ErrAt("ovni", name, 0, `missing attribute "version"`, nil, nil)
	case m.Version != 2 && m.Version != 3:
		return m, decode.ErrAt("ovni", name, 0, "stream metadata version", m.Version, decode.ErrUnsupportedVersion)
	}
	return m, nil
}

type flattenError struct {
	off int64
	msg string
}

// maxDepth bounds the nesting flatten follows.
const maxDepth = 64

// flatten lists the scalars of a JSON document in order.
func flatten(data []byte) ([]Field, *flattenError) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out []Field
	type frame struct {
		obj  bool
		key  string // object: the pending key; "" before it
		idx  int    // array: the next index
		path string
	}
	var stack []frame
	path := func(f *frame) string {
		k := f.key
		if !f.obj {
			k = strconv.Itoa(f.idx)
		}
		if f.path == "" {
			return k
		}
		return f.path + "." + k
	}
	// value records that a value of the innermost container was read and
	// returns its path.
	value := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := &stack[len(stack)-1]
		p := path(f)
		if f.obj {
			f.key = ""
		} else {
			f.idx++
		}
		return p
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if len(stack) > 0 {
				return out, &flattenError{d.InputOffset(), "unexpected end of document"}
			}
			return out, nil
		}
		if err != nil {
			return out, &flattenError{d.InputOffset(), err.Error()}
		}
		if len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].key == "" {
			if k, ok := tok.(string); ok {
				stack[len(stack)-1].key = k
				continue
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if len(stack) >= maxDepth {
					return out, &flattenError{d.InputOffset(), "nested too deep"}
				}
				p := value()
				stack = append(stack, frame{obj: v == '{', path: p})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			out = append(out, Field{value(), printable(v)})
		case json.Number:
			out = append(out, Field{value(), v.String()})
		case bool:
			out = append(out, Field{value(), strconv.FormatBool(v)})
		case nil:
			out = append(out, Field{value(), "null"})
		}
	}
}

// printable returns s, quoted when it holds control characters.
func printable(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// ReadStreamMeta reads and parses the thread's JSON metadata.
func (t *Thread) ReadStreamMeta() (*StreamMeta, error) {
	name := t.Name() + ".json"
	if t.Layout == LayoutV3 {
		name = t.Name() + "/stream.json"
	}
	if t.JSONPath == "" {
		return nil, decode.ErrAt("ovni", name, 0, "file missing", nil, nil)
	}
	data, err := readJSON(t.JSONPath, name)
	if err != nil {
		return nil, err
	}
	return ParseStreamMeta(data, name)
}

// readJSON reads a metadata file (path, shown as name in errors) of at
// most maxMetadata bytes.
func readJSON(path, name string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxMetadata {
		return nil, decode.ErrAt("ovni", name, 0, "file too large", fi.Size(), nil)
	}
	data, err := decode.ReadAt(f, fi.Size(), 0, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
}
