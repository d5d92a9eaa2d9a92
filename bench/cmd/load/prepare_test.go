package main

import (
	"errors"
	"slices"
	"testing"
)

// TestPrepare: n results, each call's own, however many workers ask; a
// call that fails ends the preparation with its error.
func TestPrepare(t *testing.T) {
	got, err := prepare(7, 3, func(i int) ([]int, error) { return []int{i, i + 1000}, nil })
	if err != nil || len(got) != 7 {
		t.Fatalf("got %v, %v; want 7 results", got, err)
	}
	slices.Sort(got)
	if len(slices.Compact(got)) != 7 {
		t.Fatalf("results repeat: %v", got)
	}
	boom := errors.New("boom")
	if got, err := prepare(100, 4, func(i int) ([]int, error) {
		if i == 5 {
			return nil, boom
		}
		return []int{i}, nil
	}); !errors.Is(err, boom) || got != nil {
		t.Fatalf("failing call: %v, %v", got, err)
	}
}
