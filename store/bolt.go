package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/caddy-osdm/caddy-osdm/internal/periodic"
)

// DefaultBoltTimeout is how long OpenBolt waits for the lock of a file
// another process holds open before it gives up.
const DefaultBoltTimeout = 5 * time.Second

// boltBucket holds every key of a Bolt store; it is created once, at open.
var boltBucket = []byte("osdm")

// scanBatch is how many pairs Scan copies out of one read transaction
// before it calls fn, outside any transaction.
const scanBatch = 256

// Bolt is a Store in one embedded bbolt file. A write returns only after
// bbolt has synced it to disk, so an acknowledged write survives a crash
// of the process. Each value carries its expiry (8 bytes, Unix
// nanoseconds, 0 for never) ahead of the caller's bytes.
//
// Writes are committed in groups (bolt_group.go): a write that finds no commit
// under way is committed at once, alone; writes that arrive while a
// commit runs share the next one, one bbolt write transaction and one
// sync for all of them, each with its own result.
type Bolt struct {
	db   *bolt.DB
	path string // for errors
	now  func() time.Time

	group boltGroup

	stop     chan struct{}
	sweeping sync.WaitGroup
	closeMu  sync.Once
	closeErr error
}

// BoltOption changes how OpenBolt opens its file.
type BoltOption func(*boltConfig)

type boltConfig struct {
	timeout    time.Duration
	now        func() time.Time
	sweepEvery time.Duration
}

// WithTimeout sets how long OpenBolt waits for a file that another process
// holds locked (DefaultBoltTimeout if not given).
func WithTimeout(d time.Duration) BoltOption { return func(c *boltConfig) { c.timeout = d } }

// WithClock sets the clock expiry is measured on (time.Now if not given).
func WithClock(now func() time.Time) BoltOption { return func(c *boltConfig) { c.now = now } }

// WithSweepEvery makes the store delete its expired keys every d, in the
// background, until Close. Without it, expired keys stay on disk (absent
// to every method) until overwritten or until Sweep is called.
func WithSweepEvery(d time.Duration) BoltOption {
	return func(c *boltConfig) { c.sweepEvery = d }
}

// OpenBolt opens (or creates, with its directory, 0700/0600) the bbolt
// file at path. A file another process holds open fails after the
// timeout with an error that names the file.
func OpenBolt(path string, opts ...BoltOption) (*Bolt, error) {
	cfg := boltConfig{timeout: DefaultBoltTimeout, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	if path == "" {
		return nil, errors.New("store: bolt: no file path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: bolt: create directory of %s: %w", path, err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: cfg.timeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("store: bolt file %s is locked by another process (waited %v): %w", path, cfg.timeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open bolt file %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(boltBucket)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: bolt file %s: create bucket: %w", path, err)
	}
	b := &Bolt{db: db, path: path, now: cfg.now, stop: make(chan struct{})}
	if cfg.sweepEvery > 0 {
		b.sweeping.Add(1)
		go b.sweepLoop(cfg.sweepEvery)
	}
	return b, nil
}

// Get implements Store.
func (b *Bolt) Get(ctx context.Context, key string) ([]byte, error) {
	if err := Check(ctx, key); err != nil {
		return nil, err
	}
	now := b.now()
	var out []byte
	err := b.db.View(func(tx *bolt.Tx) error {
		v, ok := live(tx.Bucket(boltBucket).Get([]byte(key)), now)
		if !ok {
			return ErrNotFound
		}
		out = bytes.Clone(v)
		if out == nil {
			out = []byte{}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Put implements Store.
func (b *Bolt) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := CheckWrite(ctx, key, ttl); err != nil {
		return err
	}
	now := b.now()
	w := &boltWrite{op: opPut, key: []byte(key), value: b.encode(value, ttl, now), now: now}
	return b.write(w)
}

// PutIfAbsent implements Store. An expired value counts as absent and is
// overwritten.
func (b *Bolt) PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if err := CheckWrite(ctx, key, ttl); err != nil {
		return false, err
	}
	now := b.now()
	w := &boltWrite{op: opPutIfAbsent, key: []byte(key), value: b.encode(value, ttl, now), now: now}
	err := b.write(w)
	return w.wrote && err == nil, err
}

// CompareAndSet implements Store.
func (b *Bolt) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if err := CheckWrite(ctx, key, ttl); err != nil {
		return false, err
	}
	now := b.now()
	w := &boltWrite{op: opCompareAndSet, key: []byte(key), old: old, value: b.encode(value, ttl, now), now: now}
	err := b.write(w)
	return w.wrote && err == nil, err
}

// Delete implements Store.
func (b *Bolt) Delete(ctx context.Context, key string) error {
	if err := Check(ctx, key); err != nil {
		return err
	}
	return b.write(&boltWrite{op: opDelete, key: []byte(key)})
}

// CompareAndDelete implements Store: the comparison and the deletion are
// one write transaction. An expired value is not removed (false).
func (b *Bolt) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	if err := Check(ctx, key); err != nil {
		return false, err
	}
	w := &boltWrite{op: opCompareAndDelete, key: []byte(key), old: old, now: b.now()}
	err := b.write(w)
	return w.wrote && err == nil, err
}

// Scan implements Store. It copies at most scanBatch pairs out of each
// read transaction and calls fn outside it, so fn may use the store.
func (b *Bolt) Scan(ctx context.Context, prefix string, fn func(key string, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	type pair struct {
		k string
		v []byte
	}
	p := []byte(prefix)
	seek := p
	skipFirst := false // seek is the last key of the previous batch
	for {
		now := b.now()
		var batch []pair
		more := false
		err := b.db.View(func(tx *bolt.Tx) error {
			c := tx.Bucket(boltBucket).Cursor()
			k, raw := c.Seek(seek)
			if skipFirst && k != nil && bytes.Equal(k, seek) {
				k, raw = c.Next()
			}
			for ; k != nil && bytes.HasPrefix(k, p); k, raw = c.Next() {
				if len(batch) == scanBatch {
					more = true
					return nil
				}
				v, ok := live(raw, now)
				if !ok {
					continue
				}
				batch = append(batch, pair{string(k), append([]byte{}, v...)})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("store: bolt scan: %w", err)
		}
		for _, kv := range batch {
			if err := fn(kv.k, kv.v); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		seek, skipFirst = []byte(batch[len(batch)-1].k), true
	}
}

// Sweep deletes the expired keys and returns how many it deleted. It
// works in write transactions of at most scanBatch deletions, so writers
// never wait long behind it.
func (b *Bolt) Sweep(ctx context.Context) (int, error) {
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		now := b.now()
		n := 0
		more := false
		err := b.db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket(boltBucket)
			var expired [][]byte
			c := bk.Cursor()
			for k, raw := c.First(); k != nil; k, raw = c.Next() {
				if _, ok := live(raw, now); ok {
					continue
				}
				if len(expired) == scanBatch {
					more = true
					break
				}
				expired = append(expired, bytes.Clone(k))
			}
			for _, k := range expired {
				if err := bk.Delete(k); err != nil {
					return err
				}
			}
			n = len(expired)
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("store: bolt sweep: %w", err)
		}
		total += n
		if !more {
			return total, nil
		}
	}
}

func (b *Bolt) sweepLoop(every time.Duration) {
	defer b.sweeping.Done()
	periodic.Run(b.stop, every, func() {
		// A failed sweep leaves expired keys that every method already
		// treats as absent; the next tick tries again.
		_, _ = b.Sweep(context.Background())
	})
}

// WriteTo writes a consistent copy of the whole file to w (a backup taken
// while the store serves), as bbolt's Tx.WriteTo does.
func (b *Bolt) WriteTo(w io.Writer) (int64, error) {
	var n int64
	err := b.db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// Close stops the background sweep and closes the file. It is safe to
// call more than once.
func (b *Bolt) Close() error {
	b.closeMu.Do(func() {
		close(b.stop)
		b.sweeping.Wait()
		b.closeErr = b.db.Close()
	})
	return b.closeErr
}

// encode prefixes value with its expiry time.
func (b *Bolt) encode(value []byte, ttl time.Duration, now time.Time) []byte {
	out := make([]byte, 8+len(value))
	if ttl > 0 {
		binary.BigEndian.PutUint64(out, uint64(now.Add(ttl).UnixNano()))
	}
	copy(out[8:], value)
	return out
}

// live returns the caller's bytes of a stored value (still inside the
// transaction's memory) and whether the value exists and has not expired.
func live(raw []byte, now time.Time) ([]byte, bool) {
	if len(raw) < 8 {
		return nil, false
	}
	exp := binary.BigEndian.Uint64(raw)
	if exp != 0 && now.UnixNano() >= int64(exp) {
		return nil, false
	}
	return raw[8:], true
}

// Interface guard.
var _ Store = (*Bolt)(nil)
