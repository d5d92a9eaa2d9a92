package osdmlegacy

import "github.com/caddy-osdm/caddy-osdm/ticketpdf"

// documents serves fulfilments and renders their ticket documents.
type documents struct {
	*core
	bookings   *bookings
	exchanges  *exchanges
	passengers *passengers

	// tickets keeps the ticket documents rendered last (ticket_document.go).
	tickets *ticketpdf.Cache
}
