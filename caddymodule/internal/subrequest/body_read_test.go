package subrequest

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAllSized: the declared length only sizes the buffer; what is
// read is the body, whatever it declared.
func TestReadAllSized(t *testing.T) {
	body := strings.Repeat("0123456789", 300) // 3000 bytes
	for _, hint := range []int64{-1, 0, 1, 100, 2999, 3000, 3001, 1 << 20} {
		// One byte per Read, so that every growth path runs.
		got, err := ReadAllSized(iotest.OneByteReader(strings.NewReader(body)), hint)
		if err != nil || string(got) != body {
			t.Fatalf("hint %d: %d bytes, %v; want the %d bytes", hint, len(got), err, len(body))
		}
	}
	got, err := ReadAllSized(strings.NewReader(""), 10)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty body: %q, %v", got, err)
	}
	// A read error comes back with what was read before it.
	boom := errors.New("boom")
	got, err = ReadAllSized(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), 3)
	if !errors.Is(err, boom) || string(got) != "abc" {
		t.Fatalf("read error: %q, %v", got, err)
	}
	// A body of the declared length is read into one buffer of that size
	// plus one (EOF needs no growth); a huge declared length reserves no
	// more than maxBodyPresize.
	got, _ = ReadAllSized(bytes.NewReader([]byte(body)), int64(len(body)))
	if cap(got) != len(body)+1 {
		t.Fatalf("declared %d: cap %d, want %d", len(body), cap(got), len(body)+1)
	}
	got, _ = ReadAllSized(strings.NewReader("x"), 1<<30)
	if cap(got) > maxBodyPresize {
		t.Fatalf("declared 1 GiB: cap %d, want at most %d", cap(got), maxBodyPresize)
	}
}

// TestAppendAllSized: the body is appended to what dst holds, in dst's
// own array when it has room for the declared length.
func TestAppendAllSized(t *testing.T) {
	body := strings.Repeat("0123456789", 30)
	dst := make([]byte, 3, 1024)
	copy(dst, "abc")
	got, err := AppendAllSized(dst, iotest.OneByteReader(strings.NewReader(body)), int64(len(body)))
	if err != nil || string(got) != "abc"+body {
		t.Fatalf("got %q, %v", got, err)
	}
	if &got[0] != &dst[0] {
		t.Fatal("a buffer with room was not used")
	}
	small := []byte("x")
	got, err = AppendAllSized(small[:1:1], strings.NewReader(body), -1)
	if err != nil || string(got) != "x"+body {
		t.Fatalf("growing: got %q, %v", got, err)
	}
	if allocs := testing.AllocsPerRun(10, func() {
		_, _ = AppendAllSized(dst[:0], strings.NewReader(body), int64(len(body)))
	}); allocs > 1 { // the strings.Reader
		t.Fatalf("%v allocations with room in dst", allocs)
	}
}
