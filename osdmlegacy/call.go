package osdmlegacy

import (
	"net/http"
	"net/url"
	"time"

	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// call is one OSDM call on its way through the façade.
type call struct {
	// client is the client the call is made by (anonymousClient when none).
	client string
	method string
	path   string
	op     string
	params map[string]string
	query  url.Values
	header http.Header
	body   []byte
	now    time.Time
	// send carries the call's legacy messages, each recorded for its
	// Answer (a recorder).
	send   Sender
	answer *Answer
	// tickets are the documents of the answer, rendered in place of their
	// placeholders when it leaves ServeClient (ticket_document.go).
	tickets []ticketpdf.Placeholder
}
