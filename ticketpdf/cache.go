package ticketpdf

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// Cache keeps the documents rendered last, so that the reads of one
// booking that follow its fulfilment (the fulfilment answer, GET of the
// booking, GET of the fulfilment) render it once. A document is found by
// what it shows (a hash of the whole Ticket), never by an id alone: a
// ticket whose passengers or places changed is rendered anew, and two
// providers sharing a Cache cannot see each other's documents unless
// they are the same bytes. Safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cached, most recent first
	byKey map[[sha256.Size]byte]*list.Element
}

type cached struct {
	key [sha256.Size]byte
	pdf []byte
}

// NewCache keeps up to n documents (about 35 kB each); n <= 0 keeps none
// and renders every time.
func NewCache(n int) *Cache {
	return &Cache{max: n, order: list.New(), byKey: map[[sha256.Size]byte]*list.Element{}}
}

// Render is Render(t) through the cache. The bytes returned are shared:
// the caller must not change them.
func (c *Cache) Render(t *Ticket) ([]byte, error) {
	if c == nil || c.max <= 0 {
		return Render(t)
	}
	key, err := ticketKey(t)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		pdf := e.Value.(*cached).pdf
		c.mu.Unlock()
		return pdf, nil
	}
	c.mu.Unlock()
	// Rendered outside the lock: two callers may render the same ticket
	// at once, and both get the same bytes.
	pdf, err := Render(t)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; !ok {
		c.byKey[key] = c.order.PushFront(&cached{key: key, pdf: pdf})
		for c.order.Len() > c.max {
			last := c.order.Back()
			delete(c.byKey, last.Value.(*cached).key)
			c.order.Remove(last)
		}
	}
	return pdf, nil
}

// Len is the number of documents kept.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// ticketKey is the SHA-256 of t's JSON: every field, times with their
// zone, so two tickets share a key only when they print the same.
func ticketKey(t *Ticket) ([sha256.Size]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}
