package ticketpdf

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestPlaceholderFilledWithThePDF(t *testing.T) {
	type doc struct {
		Name    string `json:"name"`
		Content []byte `json:"content"`
	}
	p := NewPlaceholder(*sample())
	other := NewPlaceholder(*sample())
	if bytes.Equal(p.Marker, other.Marker) || len(p.Marker) != 18 {
		t.Fatalf("markers %x and %x", p.Marker, other.Marker)
	}
	body, _ := json.Marshal([]doc{{Name: "ticket", Content: p.Marker}, {Name: "other", Content: []byte("x")}})
	// A placeholder that the body does not hold is left alone.
	filled, err := NewCache(4).Fill(body, []Placeholder{other, p})
	if err != nil {
		t.Fatal(err)
	}
	var got []doc
	if err := json.Unmarshal(filled, &got); err != nil {
		t.Fatalf("filled body: %v", err)
	}
	if want := render(t, sample()); len(got) != 2 || !bytes.Equal(got[0].Content, want) || string(got[1].Content) != "x" || got[0].Name != "ticket" {
		t.Errorf("filled %d documents, the first the PDF: %v", len(got), len(got) > 0 && bytes.Equal(got[0].Content, want))
	}
	// A placeholder survives JSON (an answer kept in a store).
	var back Placeholder
	raw, _ := json.Marshal(p)
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	again, err := (*Cache)(nil).Fill(body, []Placeholder{back})
	if err != nil || !bytes.Equal(again, filled) {
		t.Errorf("a placeholder read back renders other bytes: %v", err)
	}
}
