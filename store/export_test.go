package store

// Hooks for the group-commit tests (package store_test).

// SetBoltBeforeCommit makes b call f before each write transaction of
// its writes, with the number of writes in it. Set it before any write.
func SetBoltBeforeCommit(b *Bolt, f func(n int)) { b.group.beforeCommit = f }

// BoltQueued is how many writes wait for b's next commit.
func BoltQueued(b *Bolt) int {
	b.group.mu.Lock()
	defer b.group.mu.Unlock()
	return len(b.group.queue)
}
