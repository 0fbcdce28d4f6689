package otf2

import (
	"io"
	"math"
)

// A Def is one definition record.
type Def struct {
	spec   *recordSpec
	Off    int64   // file offset of the record's type byte
	Fields []Value // in wire order; see FieldNames
}

// Name is the record's OTF2 name ("Region"); "" for an unknown record.
func (d *Def) Name() string { return d.spec.Name }

// Upper is the record's name as otf2-print shows it ("REGION").
func (d *Def) Upper() string { return d.spec.Upper }

// Field returns the value of the field named name and whether it exists.
func (d *Def) Field(name string) (Value, bool) {
	for i := range d.spec.Fields {
		if d.spec.Fields[i].Name == name {
			return d.Fields[i], true
		}
	}
	return Value{}, false
}

// U returns the integer value of field name (all ones when absent).
func (d *Def) U(name string) uint64 {
	if v, ok := d.Field(name); ok {
		return v.U
	}
	return math.MaxUint64
}

// readDefs reads every record of a definition file; specs selects the
// global or the local table. It returns the definitions read before an
// error, and the error.
func readDefs(r io.ReaderAt, size int64, name string, chunkSize uint64, specs *[256]*recordSpec) ([]Def, error) {
	c := newChunkReader(r, size, name, chunkSize)
	var defs []Def
	for {
		off := c.offset()
		t := c.next()
		if c.err != nil {
			return defs, c.err
		}
		if t == bufEndOfFile {
			return defs, nil
		}
		if c.chunkOff >= 0 {
			off = c.offset() - 1
		}
		end := c.recordLen()
		if c.err != nil {
			return defs, c.err
		}
		spec := specs[t]
		if spec == nil {
			c.pos = end
			continue
		}
		d := Def{spec: spec, Off: off, Fields: make([]Value, len(spec.Fields))}
		c.readFields(spec, spec.Fields, d.Fields)
		if c.err != nil {
			return defs, c.err
		}
		c.pos = end
		defs = append(defs, d)
	}
}

// Info describes the definition's record type.
func (d *Def) Info() RecordInfo { return d.spec.info() }
