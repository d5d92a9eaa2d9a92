package subrequest

import (
	"net/http"
	"testing"
)

// TestHeldWriterToCallWriter: an answer passed on reaches the call's
// writer with its headers (taken over, not copied, when the writer has
// none); a held answer leaves nothing in it; a writer that has headers of
// its own keeps them and gets the answer's added.
func TestHeldWriterToCallWriter(t *testing.T) {
	answer := func(hw *HeldWriter, code int) {
		hw.Header().Set("Content-Type", "application/json")
		hw.Header().Set("Content-Length", "2")
		hw.WriteHeader(code)
		_, _ = hw.Write([]byte("{}"))
	}

	cw := NewCallWriter()
	hw := NewHeldWriter(cw, func(code int) bool { return code == http.StatusUnauthorized })
	answer(hw, http.StatusCreated)
	if hw.Held() || cw.Status != http.StatusCreated || string(*cw.Body) != "{}" {
		t.Fatalf("passed answer: held %v, status %d, body %q", hw.Held(), cw.Status, *cw.Body)
	}
	if cw.Header().Get("Content-Type") != "application/json" || cw.Header().Get("Content-Length") != "2" {
		t.Fatalf("passed answer's headers: %v", cw.Header())
	}

	cw = NewCallWriter()
	hw = NewHeldWriter(cw, func(code int) bool { return code == http.StatusUnauthorized })
	answer(hw, http.StatusUnauthorized)
	if !hw.Held() || cw.Wrote || len(cw.Header()) != 0 || len(*cw.Body) != 0 {
		t.Fatalf("held answer reached the writer: wrote %v, header %v, body %q", cw.Wrote, cw.Header(), *cw.Body)
	}

	cw = NewCallWriter()
	cw.Header().Set("X-Own", "1")
	hw = NewHeldWriter(cw, func(int) bool { return false })
	answer(hw, http.StatusOK)
	if cw.Header().Get("X-Own") != "1" || cw.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("writer with its own header: %v", cw.Header())
	}
}
