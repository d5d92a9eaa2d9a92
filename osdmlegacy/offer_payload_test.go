package osdmlegacy

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestPayloadReaderVarints: the reader gives back every signed and
// unsigned value binary.AppendVarint and AppendUvarint wrote, in order,
// and a value cut short sets bad and reads as zero from then on.
func TestPayloadReaderVarints(t *testing.T) {
	signed := []int64{0, 1, -1, 63, -64, 64, -65, 3600, -3600, math.MaxInt64, math.MinInt64}
	unsigned := []uint64{0, 1, 127, 128, 1 << 32, math.MaxUint64}
	var b []byte
	for i, v := range signed {
		b = binary.AppendVarint(b, v)
		b = binary.AppendUvarint(b, unsigned[i%len(unsigned)])
	}
	d := &payloadReader{b: b}
	for i, want := range signed {
		if got := d.varint(); got != want {
			t.Errorf("varint %d: %d, want %d", i, got, want)
		}
		if got, want := d.uvarint(), unsigned[i%len(unsigned)]; got != want {
			t.Errorf("uvarint %d: %d, want %d", i, got, want)
		}
	}
	if d.bad || len(d.b) != 0 {
		t.Errorf("bad %v, %d bytes left", d.bad, len(d.b))
	}
	cut := binary.AppendVarint(nil, math.MinInt64)
	d = &payloadReader{b: cut[:len(cut)-1]}
	if v := d.varint(); v != 0 || !d.bad {
		t.Errorf("a varint cut short: %d, bad %v", v, d.bad)
	}
	d.b = binary.AppendVarint(nil, -1)
	if v := d.varint(); v != 0 {
		t.Errorf("after a bad read: %d", v)
	}
}
