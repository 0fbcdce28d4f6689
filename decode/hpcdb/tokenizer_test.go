package hpcdb

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// tokens lists the start and end tags of b as "<name a=v ...>" and
// "</name>", read by our tokenizer.
func tokens(b []byte) ([]string, error) {
	var out []string
	p := &xmlParser{b: b, x: &Experiment{}}
	p.record = func(start bool, name string, attrs []attr) {
		if !start {
			out = append(out, "</"+name+">")
			return
		}
		s := "<" + name
		for _, a := range attrs {
			s += " " + a.name + "=" + unescape(a.val)
		}
		out = append(out, s+">")
	}
	return out, p.parse()
}

// stdTokens lists the same with encoding/xml; ok is false when it rejects b.
func stdTokens(b []byte) (out []string, ok bool) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	name := func(n xml.Name) string {
		if n.Space != "" {
			return n.Space + ":" + n.Local
		}
		return n.Local
	}
	for {
		t, err := d.RawToken()
		if err == io.EOF {
			return out, true
		}
		if err != nil {
			return nil, false
		}
		switch t := t.(type) {
		case xml.StartElement:
			s := "<" + name(t.Name)
			for _, a := range t.Attr {
				s += " " + name(a.Name) + "=" + a.Value
			}
			out = append(out, s+">")
		case xml.EndElement:
			out = append(out, "</"+name(t.Name)+">")
		case xml.Directive:
			// a declaration holding '>' (an internal DTD subset) is
			// read by the tokenizer as several; both skip it whole
			// only when it holds none
			if bytes.ContainsAny(t, "<>") {
				return nil, false
			}
		}
	}
}

// FuzzTokenizer checks the hand-written tokenizer against encoding/xml:
// on every input encoding/xml reads to the end, the tokenizer reads the
// same elements with the same attribute values, without error.
func FuzzTokenizer(f *testing.F) {
	corpus := filepath.Join(testdata.CorpusDir(), "hpctoolkit")
	for _, c := range []string{"db-4.0-xml-pipit-ping-pong", "db-4.0-xml-hpcviewer-empty-trace"} {
		if b, err := os.ReadFile(filepath.Join(corpus, c, "experiment.xml")); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`<?xml version="1.0"?><!-- c --><a x='1' y="&lt;&amp;&#65;&#x42;"><b/></a>`,
		`<a  x = "1"	y="2" ></a >`, `<a:b c:d="e"/>`, `<a x="1>2"/>`, `<a><![CDATA[<b>]]></a>`,
		`<a>text &amp; more</a>`, `<a x="&#0;"/>`, `<a x="`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, ok := stdTokens(b)
		if !ok {
			tokens(b) // must not panic
			return
		}
		got, err := tokens(b)
		if err != nil {
			t.Fatalf("encoding/xml reads %q, the tokenizer fails: %v", b, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("input %q:\ntokenizer    %s\nencoding/xml %s", b, strings.Join(got, " "), strings.Join(want, " "))
		}
	})
}

// BenchmarkTokenizer compares the tokenizer with encoding/xml's RawToken
// on a generated experiment.xml of 20000 contexts.
func BenchmarkTokenizer(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0"?><HPCToolkitExperiment version="4.0"><SecCallPathProfile i="0" n="x"><SecCallPathProfileData>`)
	for i := range 20000 {
		sb.WriteString(`<PF i="` + strings.Repeat("7", 1+i%5) + `" s="12" l="34" lm="2" f="3" n="1234" v="0x401000"><C i="5" s="6" l="7" v="0x401010"></C></PF>`)
	}
	sb.WriteString(`</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>`)
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	b.Run("tokenizer", func(b *testing.B) {
		for b.Loop() {
			p := &xmlParser{b: in, x: &Experiment{}, record: func(bool, string, []attr) {}}
			if err := p.parse(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/xml", func(b *testing.B) {
		for b.Loop() {
			d := xml.NewDecoder(bytes.NewReader(in))
			for {
				if _, err := d.RawToken(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
