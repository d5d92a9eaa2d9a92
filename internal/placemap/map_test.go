package placemap

import (
	"slices"
	"testing"
)

func TestTakeGivesTheLowestFreePlaces(t *testing.T) {
	p := New(5)
	if got := p.Take(2); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("first take: %v", got)
	}
	if got := p.Take(1); !slices.Equal(got, []int{2}) {
		t.Fatalf("second take: %v", got)
	}
	if n := p.Release([]int{1}); n != 1 {
		t.Fatalf("released %d of one taken place", n)
	}
	// The freed place 1 comes before 3 and 4.
	if got := p.Take(2); !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("take after a release: %v", got)
	}
	if p.Used() != 4 || p.Free() != 1 {
		t.Errorf("used %d free %d, want 4 and 1", p.Used(), p.Free())
	}
}

func TestTakeRefusesWhatIsNotThere(t *testing.T) {
	p := New(3)
	for _, n := range []int{0, -1, 4} {
		if got := p.Take(n); got != nil {
			t.Errorf("take %d of 3: %v", n, got)
		}
	}
	p.Take(2)
	if got := p.Take(2); got != nil {
		t.Errorf("took 2 with 1 free: %v", got)
	}
	// A refused take takes nothing.
	if p.Used() != 2 || p.Free() != 1 {
		t.Errorf("used %d free %d after refusals, want 2 and 1", p.Used(), p.Free())
	}
}

func TestReleaseFreesOnlyTakenPlaces(t *testing.T) {
	p := New(4)
	p.Take(3)
	if n := p.Release([]int{0, 0, 3, -1, 4, 2}); n != 2 {
		t.Errorf("freed %d, want 2 (0 once, 2; 3 was free, -1 and 4 are not places)", n)
	}
	if n := p.Release([]int{0}); n != 0 {
		t.Errorf("a place released twice was freed again (%d)", n)
	}
	if p.Used() != 1 || p.Free() != 3 {
		t.Errorf("used %d free %d, want 1 and 3", p.Used(), p.Free())
	}
	if got := p.Take(3); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("take after releases: %v", got)
	}
}
