package ticketpdf

import (
	"bytes"
	"strconv"
	"testing"
)

func TestCacheRendersATicketOnce(t *testing.T) {
	c := NewCache(2)
	a, err := c.Render(sample())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Render(sample())
	if &a[0] != &b[0] {
		t.Error("the same ticket was rendered again")
	}
	if want := render(t, sample()); !bytes.Equal(a, want) {
		t.Error("the cached document is not Render's")
	}
	// A ticket that prints differently is another document.
	tk := sample()
	tk.Legs[0].Places[0].Number = "46A"
	other, _ := c.Render(tk)
	if bytes.Equal(other, a) {
		t.Error("a changed place gave the cached document")
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := NewCache(3)
	first := sample()
	firstPDF, _ := c.Render(first)
	for i := range 5 {
		tk := sample()
		tk.ControlNumber = "CN" + strconv.Itoa(i)
		if _, err := c.Render(tk); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 3 {
		t.Errorf("the cache keeps %d documents, want 3", c.Len())
	}
	again, _ := c.Render(first)
	if &again[0] == &firstPDF[0] {
		t.Error("the oldest document was not evicted")
	}
	if !bytes.Equal(again, firstPDF) {
		t.Error("rendered again, the document differs")
	}
	if none := NewCache(0); none.Len() != 0 {
		t.Error("NewCache(0) keeps documents")
	}
}
