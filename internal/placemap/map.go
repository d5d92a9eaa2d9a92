// Package placemap is the place bitmap both sandboxes keep per kind of place
// in a train run: which places are taken, handed out lowest first.
package placemap

// Map holds the places of one kind in one train run, numbered from 0 up
// to the capacity: which are taken and how many. Not safe for concurrent
// use: the sandboxes hold their own lock around it.
type Map struct {
	taken []bool // by index
	used  int
}

// New returns a Map of capacity places, all free.
func New(capacity int) *Map {
	return &Map{taken: make([]bool, capacity)}
}

// Free counts the places not taken.
func (m *Map) Free() int { return len(m.taken) - m.used }

// Used counts the places taken.
func (m *Map) Used() int { return m.used }

// Take takes the n lowest free places and returns their indexes in
// ascending order, or returns nil and takes none when n is below 1 or
// fewer than n are free.
func (m *Map) Take(n int) []int {
	if n < 1 || m.Free() < n {
		return nil
	}
	got := make([]int, 0, n)
	for i := 0; i < len(m.taken) && len(got) < n; i++ {
		if !m.taken[i] {
			m.taken[i] = true
			got = append(got, i)
		}
	}
	m.used += len(got)
	return got
}

// Release frees the places of idx that are taken and returns how many it
// freed: an index out of range or already free is passed over, so a place
// released twice is freed once.
func (m *Map) Release(idx []int) int {
	freed := 0
	for _, i := range idx {
		if i >= 0 && i < len(m.taken) && m.taken[i] {
			m.taken[i] = false
			freed++
		}
	}
	m.used -= freed
	return freed
}
