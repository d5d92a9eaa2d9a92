package modulekit

import "github.com/caddyserver/caddy/v2"

// Pool keeps values across configuration reloads, keyed by the settings
// that made them: a caddy.UsagePool whose values are T. A configuration's
// Provision takes a hold on a value with Take and its Cleanup gives it
// back with Release; the value lives while any configuration holds it.
type Pool[T any] struct {
	usage    *caddy.UsagePool
	destruct func(T) error
}

// NewPool returns an empty pool. destruct, when not nil, frees a value
// once no configuration holds it (stops its goroutines, closes its
// connections).
func NewPool[T any](destruct func(T) error) *Pool[T] {
	return &Pool[T]{usage: caddy.NewUsagePool(), destruct: destruct}
}

// pooled is a Pool's value as the UsagePool holds it.
type pooled[T any] struct {
	value    T
	destruct func(T) error
}

// Destruct implements caddy.Destructor.
func (p pooled[T]) Destruct() error {
	if p.destruct == nil {
		return nil
	}
	return p.destruct(p.value)
}

// Take returns the value under key and takes a hold on it; build makes it
// when no configuration holds one. loaded tells whether it was there.
func (p *Pool[T]) Take(key string, build func() (T, error)) (value T, loaded bool, err error) {
	v, loaded, err := p.usage.LoadOrNew(key, func() (caddy.Destructor, error) {
		value, err := build()
		if err != nil {
			return nil, err
		}
		return pooled[T]{value, p.destruct}, nil
	})
	if err != nil {
		return value, false, err
	}
	return v.(pooled[T]).value, loaded, nil
}

// Release gives back a configuration's hold on the value under key. An
// empty key is no hold (Provision stopped before taking one).
func (p *Pool[T]) Release(key string) error {
	if key == "" {
		return nil
	}
	_, err := p.usage.Delete(key)
	return err
}

// Range calls fn for every value held, until fn returns false.
func (p *Pool[T]) Range(fn func(T) bool) {
	p.usage.Range(func(_, v any) bool { return fn(v.(pooled[T]).value) })
}

// References is how many holds there are on the value under key, and
// whether there is one.
func (p *Pool[T]) References(key string) (int, bool) {
	return p.usage.References(key)
}
