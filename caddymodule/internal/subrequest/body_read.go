package subrequest

import (
	"errors"
	"io"
	"net"
	"os"
)

// maxBodyPresize bounds the buffer ReadAllSized makes before any of the
// body has arrived: a client that declares a long body and sends nothing
// must not get more memory reserved than this.
const maxBodyPresize = 64 << 10

// ReadAllSized reads r to EOF as io.ReadAll does, but starts with room for
// hint+1 bytes when 0 < hint <= maxBodyPresize (hint is the declared
// Content-Length; the extra byte lets EOF be seen without growing), so
// that a body of known length is read in one allocation instead of
// growing from 512 bytes. The hint only sizes the buffer: a body longer
// or shorter than declared is read whole all the same, and r (a
// MaxBytesReader or LimitReader) does the limiting.
func ReadAllSized(r io.Reader, hint int64) ([]byte, error) {
	return AppendAllSized(nil, r, hint)
}

// AppendAllSized is ReadAllSized appending to dst (a pooled buffer,
// GetBuffer): it allocates nothing when dst has room for hint+1 more
// bytes, and grows dst as ReadAllSized grows its buffer otherwise.
func AppendAllSized(dst []byte, r io.Reader, hint int64) ([]byte, error) {
	size := 512
	if hint > 0 && hint <= maxBodyPresize {
		size = int(hint) + 1
	}
	b := dst
	if cap(b)-len(b) < size {
		b = make([]byte, len(dst), len(dst)+size)
		copy(b, dst)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
}

// IsTimeout reports a read cut off by its deadline (a body that did not
// arrive within the call's timeout).
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
