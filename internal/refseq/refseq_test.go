package refseq

import (
	"regexp"
	"testing"
)

// References count up across prefixes, all with the sequence's tag.
func TestNextCountsUpWithOneTag(t *testing.T) {
	s := New()
	first := s.Next("b")
	m := regexp.MustCompile(`^b-([0-9a-f]{4})-1$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first reference %q, want b-<4 hex digits>-1", first)
	}
	tag := m[1]
	if got := s.Next("o"); got != "o-"+tag+"-2" {
		t.Errorf("second reference %q, want o-%s-2", got, tag)
	}
	if got := s.Next("9999"); got != "9999-"+tag+"-3" {
		t.Errorf("third reference %q, want 9999-%s-3", got, tag)
	}
}

// Each sequence draws its own tag, so a restart does not hand out the
// references of the run before.
func TestNewDrawsATag(t *testing.T) {
	first := New()
	for range 20 {
		if s := New(); s.tag != first.tag {
			return
		}
	}
	t.Errorf("21 sequences all have tag %q", first.tag)
}
