package hpcrun

import (
	"reflect"
	"testing"
)

func TestStateCodecs(t *testing.T) {
	tests := []struct {
		codec interface {
			EncodeState(any) []byte
			DecodeState([]byte) (any, error)
		}
		states []any
	}{
		{posGen{}, []any{cctPos{}, cctPos{started: true}, cctPos{started: true, epoch: 3, node: 1<<40 + 5}}},
		{ptGen(nil), []any{ptPos{}, ptPos{part: 7, node: 123456789}}},
	}
	for _, tt := range tests {
		for _, s := range tt.states {
			b := tt.codec.EncodeState(s)
			got, err := tt.codec.DecodeState(b)
			if err != nil || !reflect.DeepEqual(got, s) {
				t.Errorf("%T: %v round-trips to %v, %v", tt.codec, s, got, err)
			}
			if _, err := tt.codec.DecodeState(append(b, 0)); err == nil {
				t.Errorf("%T: trailing byte accepted", tt.codec)
			}
			if len(b) > 1 {
				if _, err := tt.codec.DecodeState(b[:len(b)-1]); err == nil {
					t.Errorf("%T: truncated state %x accepted", tt.codec, b[:len(b)-1])
				}
			}
		}
	}
	if _, err := (posGen{}).DecodeState([]byte{2, 0, 0}); err == nil {
		t.Error("bad started byte accepted")
	}
}
