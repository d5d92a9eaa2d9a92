package store

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Group commit. bbolt runs one write transaction at a time and syncs the
// file twice per commit (the pages, then the meta page), so writers that
// each commit alone queue behind one another's syncs. Bolt's writes go
// through a leader/follower queue instead:
//
//   - a write that finds no commit under way leads: it is committed at
//     once, alone, with no wait for company (bbolt's Batch would wait up
//     to its MaxBatchDelay first);
//   - writes that arrive while a commit runs queue; when it ends, the
//     first of them leads the next commit, which takes every write queued
//     so far: one write transaction and one sync for all of them;
//   - each write is applied in queue order inside the transaction and
//     gets its own result (PutIfAbsent, CompareAndSet and
//     CompareAndDelete see the writes before theirs in the group, as they
//     would have in transactions of their own);
//   - a write whose application fails (a key bbolt refuses) takes the
//     transaction down with it: nothing of it was committed, so it is run
//     again alone, for its own result, and the others again together
//     without it; no write is applied twice or fails for another's fault,
//     as bbolt's Batch does with a failing function. A failure of the
//     commit itself (the disk) fails every write of the group: none of
//     them was written.
//
// A write returns only once its group's transaction is committed and
// synced, as before: an acknowledged write survives a crash.

// boltOp is the kind of one write.
type boltOp uint8

const (
	opPut boltOp = iota
	opPutIfAbsent
	opCompareAndSet
	opDelete
	opCompareAndDelete
)

// boltWrite is one caller's write, from its call until its commit.
type boltWrite struct {
	op    boltOp
	key   []byte
	value []byte    // encoded with its expiry; not for the deletes
	old   []byte    // opCompareAndSet, opCompareAndDelete: the value expected
	now   time.Time // the caller's time, against which expiry is read

	// Results, set by the commit that wrote (or failed) it.
	wrote bool
	err   error

	// done is signalled once the write is committed (or has failed), or
	// when it is made the leader of the next commit (lead).
	done chan struct{}
	lead bool
}

// boltGroup is the queue of writes waiting for the next commit.
type boltGroup struct {
	mu    sync.Mutex
	busy  bool         // a leader is committing
	queue []*boltWrite // writes that arrived since its group was taken

	commits atomic.Uint64

	// beforeCommit, when set (tests only, before any write), is called
	// by the leader before each write transaction with the number of
	// writes it holds.
	beforeCommit func(n int)
}

// Commits is how many write transactions the store's writes have
// committed since it was opened; each is one sync of the file. With
// writers at once it is less than the number of writes.
func (b *Bolt) Commits() uint64 { return b.group.commits.Load() }

// write commits w, alone or in a group, and returns its error; w.wrote is
// its result.
func (b *Bolt) write(w *boltWrite) error {
	g := &b.group
	g.mu.Lock()
	var group []*boltWrite
	if !g.busy {
		// No commit under way: this write is committed at once, alone.
		g.busy = true
		g.mu.Unlock()
		one := [1]*boltWrite{w}
		group = one[:]
	} else {
		w.done = make(chan struct{}, 1)
		g.queue = append(g.queue, w)
		g.mu.Unlock()
		<-w.done
		if !w.lead {
			return w.err
		}
		// Made the leader: commit everything queued so far, w first.
		g.mu.Lock()
		group, g.queue = g.queue, nil
		g.mu.Unlock()
	}
	b.commit(group)
	g.mu.Lock()
	if len(g.queue) > 0 {
		// Hand the lead to the first write that queued meanwhile; busy
		// stays set, so writes keep queueing behind it.
		next := g.queue[0]
		next.lead = true
		next.done <- struct{}{}
	} else {
		g.busy = false
	}
	g.mu.Unlock()
	return w.err
}

// commit writes group in one transaction and tells each write its
// result; the leader's own write is group's, and it is not signalled.
func (b *Bolt) commit(group []*boltWrite) {
	for len(group) > 0 {
		if hook := b.group.beforeCommit; hook != nil {
			hook(len(group))
		}
		failed := -1
		err := b.db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket(boltBucket)
			for i, w := range group {
				if err := w.apply(bk); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed >= 0 && len(group) > 1 {
			// Rolled back, nothing of it written: the failing write
			// alone, for its own result, then the rest together.
			b.commit(group[failed : failed+1])
			rest := make([]*boltWrite, 0, len(group)-1)
			rest = append(append(rest, group[:failed]...), group[failed+1:]...)
			group = rest
			continue
		}
		if err == nil {
			b.group.commits.Add(1)
		} else {
			err = fmt.Errorf("store: bolt write to %s: %w", b.path, err)
		}
		for _, w := range group {
			w.err = err
			if err != nil {
				w.wrote = false
			}
			if w.done != nil && !w.lead {
				w.done <- struct{}{}
			}
		}
		return
	}
}

// apply makes w in bk. It sets w.wrote afresh on every run, so a write
// run again after its group was rolled back reports the run that counts.
func (w *boltWrite) apply(bk *bolt.Bucket) error {
	w.wrote = false
	switch w.op {
	case opPutIfAbsent:
		if _, ok := live(bk.Get(w.key), w.now); ok {
			return nil
		}
	case opCompareAndSet:
		cur, ok := live(bk.Get(w.key), w.now)
		if !ok || !bytes.Equal(cur, w.old) {
			return nil
		}
	case opDelete:
		return bk.Delete(w.key)
	case opCompareAndDelete:
		cur, ok := live(bk.Get(w.key), w.now)
		if !ok || !bytes.Equal(cur, w.old) {
			return nil
		}
		w.wrote = true
		return bk.Delete(w.key)
	}
	w.wrote = true
	return bk.Put(w.key, w.value)
}
