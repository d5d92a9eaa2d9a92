package osdmsandbox

import "container/list"

// ordered is a map that remembers insertion order, so the oldest entry can
// be found and dropped in O(1) when a store is full, and entries that
// expire in insertion order can be swept from the front.
type ordered[V any] struct {
	byID  map[string]*list.Element
	order list.List // of *entry[V], oldest first
}

type entry[V any] struct {
	id    string
	value V
}

func newOrdered[V any]() *ordered[V] {
	return &ordered[V]{byID: map[string]*list.Element{}}
}

func (o *ordered[V]) get(id string) (V, bool) {
	if e, ok := o.byID[id]; ok {
		return e.Value.(*entry[V]).value, true
	}
	var zero V
	return zero, false
}

// put adds id as the newest entry; id must not be present.
func (o *ordered[V]) put(id string, v V) {
	o.byID[id] = o.order.PushBack(&entry[V]{id: id, value: v})
}

func (o *ordered[V]) remove(id string) {
	if e, ok := o.byID[id]; ok {
		o.order.Remove(e)
		delete(o.byID, id)
	}
}

func (o *ordered[V]) len() int { return len(o.byID) }

// oldest returns the first entry put.
func (o *ordered[V]) oldest() (string, V, bool) {
	if e := o.order.Front(); e != nil {
		en := e.Value.(*entry[V])
		return en.id, en.value, true
	}
	var zero V
	return "", zero, false
}

// each calls f from the oldest entry on until f returns false. f may
// remove the entry it is given.
func (o *ordered[V]) each(f func(id string, v V) bool) {
	for e := o.order.Front(); e != nil; {
		next := e.Next()
		en := e.Value.(*entry[V])
		if !f(en.id, en.value) {
			return
		}
		e = next
	}
}
