// Package ticketpdf renders the ticket of one fulfilment as an A4 PDF: the
// operator, train, date and times, stations, coach and place, class,
// passenger names, booking code, control number and price, with an Aztec
// code that holds the control number and the booking code.
//
// Both OSDM providers of caddy-osdm (osdm_legacy and osdm_sandbox) use it
// for the PDF_A4 TICKET documents of their fulfilments. The package does
// not import Caddy.
//
// Rendering is deterministic: the same Ticket gives the same bytes. The
// PDF's dates are the ticket's IssuedOn, never the time of rendering, and
// its document ID and metadata are fixed, so a document can be rendered
// again on demand instead of being stored: Cache keeps the last ones, and
// a Placeholder stands for a PDF in a JSON answer until Cache.Fill
// renders it in place (after a lock is released, or when an answer kept
// for an Idempotency-Key is replayed).
//
// Text may be in any script the embedded font covers (the Go fonts:
// Latin with its accents, Greek, Cyrillic and the rest of WGL4); a
// character it cannot show is printed as "?", never dropped silently. A
// field too long for its place is wrapped, then cut with "…".
//
// The PDF is written by codeberg.org/go-pdf/fpdf and the Aztec code is
// encoded by github.com/boombuler/barcode/aztec; its modules are drawn as
// vector squares, sharp at any scale. The font is the Go font
// (golang.org/x/image/font/gofont), embedded as a subset under its BSD
// licence (GOFONT-LICENSE in this folder).
package ticketpdf
