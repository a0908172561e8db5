package dqn

import (
	"bytes"
	"testing"
)

// FuzzDecodeSafetensors: the decoder never panics, and whatever it accepts
// re-encodes to a file that decodes to the same tensors and metadata.
func FuzzDecodeSafetensors(f *testing.F) {
	net, err := NewMLP([]int{3, 2, 2}, 1)
	if err != nil {
		f.Fatal(err)
	}
	good, err := EncodeSafetensors(net.Tensors(), map[string]string{"format": "mirage-dqn"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:12])
	f.Add([]byte{})
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, meta, err := DecodeSafetensors(b)
		if err != nil {
			return
		}
		again, err := EncodeSafetensors(ts, meta)
		if err != nil {
			t.Fatalf("accepted file does not re-encode: %v", err)
		}
		ts2, meta2, err := DecodeSafetensors(again)
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		if len(ts2) != len(ts) || len(meta2) != len(meta) {
			t.Fatalf("round trip: %d tensors, %d metadata -> %d, %d", len(ts), len(meta), len(ts2), len(meta2))
		}
		for i := range ts {
			a, b := ts[i], ts2[i]
			if a.Name != b.Name || len(a.Data) != len(b.Data) || len(a.Shape) != len(b.Shape) {
				t.Fatalf("tensor %d: %s %v -> %s %v", i, a.Name, a.Shape, b.Name, b.Shape)
			}
		}
		for k, v := range meta {
			if meta2[k] != v {
				t.Fatalf("metadata %q: %q -> %q", k, v, meta2[k])
			}
		}
		if again2, _ := EncodeSafetensors(ts2, meta2); !bytes.Equal(again, again2) {
			t.Fatal("encoding is not stable")
		}
	})
}
