// Package refseq makes the references a sandbox hands out (booking
// references, offer and booking ids): "<prefix>-<tag>-<n>", where n counts
// up from 1 and tag is random for each sequence, so that a restarted
// sandbox's references differ from those of its earlier run, which a
// client may still hold.
package refseq

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
)

// Seq is a sequence of references. Not safe for concurrent use: the
// sandboxes call it under their own lock.
type Seq struct {
	tag string // 4 hex digits
	n   uint64 // references handed out
}

// New returns a sequence with a fresh random tag.
func New() Seq {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return Seq{tag: hex.EncodeToString(b[:])}
}

// Next returns the next reference, with prefix: e.g. "b-3fa2-17". The
// count is shared by all prefixes.
func (s *Seq) Next(prefix string) string {
	s.n++
	return prefix + "-" + s.tag + "-" + strconv.FormatUint(s.n, 10)
}
