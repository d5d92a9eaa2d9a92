package subrequest

import "sync"

// maxPooledBuffer is the largest buffer kept for reuse: an OSDM answer or
// a legacy reply is a few KiB; a rare large one is left to the collector
// rather than held by the pool.
const maxPooledBuffer = 64 << 10

// buffers holds byte slices (as *[]byte, so that putting one back does
// not allocate) for the bodies an exchange reads and writes only while it
// runs: the legacy request's body, the partners' answers (CallWriter) and
// the encoded legacy reply.
// Nothing that outlives the exchange (the reply cache, the converter's
// replies, the journal) may keep a slice of one: they hold copies of what
// they need (converter/retention_test.go).
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// GetBuffer returns an empty buffer from the pool.
func GetBuffer() *[]byte {
	b := buffers.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// PutBuffer gives b back to the pool; b must not be used after.
func PutBuffer(b *[]byte) {
	if b == nil || cap(*b) > maxPooledBuffer {
		return
	}
	buffers.Put(b)
}
