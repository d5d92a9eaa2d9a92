package ticketpdf

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
)

// Placeholder stands for a ticket's PDF in a JSON answer made before the
// PDF is: the answer carries Marker where the document's content goes
// (a []byte, which encoding/json writes as a base64 string), and Fill
// puts the rendered PDF in its place. An answer kept for a replay (an
// Idempotency-Key) so keeps a few hundred bytes of Ticket rather than the
// PDF, and the replay renders the same bytes again; and a provider can
// build its answer under a lock and render after releasing it.
type Placeholder struct {
	// Marker is 18 random bytes, 24 base64 characters: no text of an
	// answer, which the client chose or not, can be mistaken for it.
	Marker []byte `json:"marker"`
	// Ticket is what the document shows.
	Ticket Ticket `json:"ticket"`
}

// NewPlaceholder is a placeholder for t with a new random marker.
func NewPlaceholder(t Ticket) Placeholder {
	marker := make([]byte, 18)
	_, _ = rand.Read(marker) // never fails (crypto/rand)
	return Placeholder{Marker: marker, Ticket: t}
}

// Fill is body with the JSON string of each placeholder's marker replaced
// by its ticket's PDF in base64, rendered through c (nil: no cache). A
// placeholder not in body is not rendered.
func (c *Cache) Fill(body []byte, placeholders []Placeholder) ([]byte, error) {
	for i := range placeholders {
		p := &placeholders[i]
		marker := []byte(`"` + base64.StdEncoding.EncodeToString(p.Marker) + `"`)
		at := bytes.Index(body, marker)
		if at < 0 {
			continue
		}
		pdf, err := c.Render(&p.Ticket)
		if err != nil {
			return nil, err
		}
		content := base64.StdEncoding.EncodeToString(pdf)
		out := make([]byte, 0, len(body)+len(content))
		out = append(out, body[:at+1]...) // up to the opening quote
		out = append(out, content...)
		out = append(out, body[at+len(marker)-1:]...) // from the closing quote
		body = out
	}
	return body, nil
}
