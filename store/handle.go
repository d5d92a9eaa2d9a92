package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrNotReady is wrapped by the errors of a Handle whose store is not
// open yet (or no longer): the call may be made again shortly.
var ErrNotReady = errors.New("store: not open yet")

// Handle is a Store handed out before it is opened: a configuration's
// handlers get their store when they are set up, and the store is opened
// later, when the configuration starts (or never, when it is only
// validated). Until then a call waits for it, at most the handle's wait
// and never past its context, and then fails with an error wrapping
// ErrNotReady that names the store; a store that failed to open fails
// every call with that error. A Handle is never nil inside: there is no
// moment at which a caller gets a nil store.
type Handle struct {
	where string
	wait  time.Duration

	ready chan struct{} // closed by Open or Fail
	once  sync.Once
	s     Store
	err   error

	mu      sync.Mutex
	pending error // why the store is not open yet, once its opener knows
}

// NewHandle returns a handle on the store where names (for errors, e.g.
// "bolt /var/lib/caddy/osdm.db"), whose calls wait at most wait for it.
func NewHandle(where string, wait time.Duration) *Handle {
	return &Handle{where: where, wait: wait, ready: make(chan struct{})}
}

// Where names the store, for logs and errors.
func (h *Handle) Where() string { return h.where }

// Open makes s the handle's store; calls waiting for it go on. Only the
// first Open or Fail counts.
func (h *Handle) Open(s Store) {
	h.once.Do(func() {
		h.s = s
		close(h.ready)
	})
}

// Fail makes every call fail with err (wrapped with ErrNotReady: another
// configuration may yet open the store). Only the first Open or Fail
// counts.
func (h *Handle) Fail(err error) {
	h.once.Do(func() {
		h.err = fmt.Errorf("%w: %s: %w", ErrNotReady, h.where, err)
		close(h.ready)
	})
}

// Waiting records why the store is not open yet (its database does not
// answer, say) while its opener keeps trying: a call that times out
// waiting says so, rather than that the configuration has not started.
func (h *Handle) Waiting(why error) {
	h.mu.Lock()
	h.pending = why
	h.mu.Unlock()
}

// Ready reports whether the handle's store is open.
func (h *Handle) Ready() bool {
	select {
	case <-h.ready:
		return h.err == nil
	default:
		return false
	}
}

// store waits for the handle's store, as the type's comment says.
func (h *Handle) store(ctx context.Context) (Store, error) {
	select {
	case <-h.ready:
		return h.s, h.err
	default:
	}
	t := time.NewTimer(h.wait)
	defer t.Stop()
	select {
	case <-h.ready:
		return h.s, h.err
	case <-ctx.Done():
		return nil, h.notOpen(ctx.Err())
	case <-t.C:
		return nil, h.notOpen(nil)
	}
}

// notOpen is the error of a call that stopped waiting for the store, at
// its context's end (ctxErr) or after the handle's wait: why the store
// is not open where its opener knows, else that its configuration has not
// started.
func (h *Handle) notOpen(ctxErr error) error {
	h.mu.Lock()
	why := h.pending
	h.mu.Unlock()
	switch {
	case why != nil && ctxErr != nil:
		return fmt.Errorf("%w: %s is not reachable (still trying): %w (%w)", ErrNotReady, h.where, why, ctxErr)
	case why != nil:
		return fmt.Errorf("%w: %s is not reachable (still trying): %w", ErrNotReady, h.where, why)
	case ctxErr != nil:
		return fmt.Errorf("%w: %s: %w", ErrNotReady, h.where, ctxErr)
	}
	return fmt.Errorf("%w: %s is not open after %v (its configuration has not started)", ErrNotReady, h.where, h.wait)
}

// Get implements Store.
func (h *Handle) Get(ctx context.Context, key string) ([]byte, error) {
	s, err := h.store(ctx)
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, key)
}

// Put implements Store.
func (h *Handle) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	s, err := h.store(ctx)
	if err != nil {
		return err
	}
	return s.Put(ctx, key, value, ttl)
}

// PutIfAbsent implements Store.
func (h *Handle) PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	s, err := h.store(ctx)
	if err != nil {
		return false, err
	}
	return s.PutIfAbsent(ctx, key, value, ttl)
}

// CompareAndSet implements Store.
func (h *Handle) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	s, err := h.store(ctx)
	if err != nil {
		return false, err
	}
	return s.CompareAndSet(ctx, key, old, value, ttl)
}

// Delete implements Store.
func (h *Handle) Delete(ctx context.Context, key string) error {
	s, err := h.store(ctx)
	if err != nil {
		return err
	}
	return s.Delete(ctx, key)
}

// CompareAndDelete implements Store.
func (h *Handle) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	s, err := h.store(ctx)
	if err != nil {
		return false, err
	}
	return s.CompareAndDelete(ctx, key, old)
}

// Scan implements Store.
func (h *Handle) Scan(ctx context.Context, prefix string, fn func(key string, value []byte) error) error {
	s, err := h.store(ctx)
	if err != nil {
		return err
	}
	return s.Scan(ctx, prefix, fn)
}

// Close does nothing: whoever opened the store closes it.
func (h *Handle) Close() error { return nil }

// Interface guard.
var _ Store = (*Handle)(nil)
