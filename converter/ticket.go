package converter

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// ticket answers a TicketRequest: GET the booking; refuse one that has no
// live fulfilment; GET each live fulfilment for its documents; download
// the documents that come as a link; answer every fulfilment as a Ticket.
// The reply is whole or a NegativeReply: a document that is not ready,
// too large, broken or not had in time is never answered in part.
func (r *run) ticket(ctx context.Context, m *legacy.TicketRequest) *Result {
	id := m.BookingRef
	if res := r.unsafeRef("BookingRef", id); res != nil {
		return res
	}
	var body []byte
	params := map[string]string{osdm.ParamBookingID: id}
	if f := r.do(ctx, call{step: StepReadBooking, params: params, maxAnswer: r.c.documentsAnswer(), answer: &body}); f != nil {
		return r.failBooking(f, id)
	}
	br := new(osdm.BookingResponse)
	if res := r.decodeDocuments(StepReadBooking, r.describeCall(StepReadBooking, id), body, br, id); res != nil {
		return res
	}
	if br.Booking == nil {
		return r.noBooking(id, br.Problems)
	}
	b := br.Booking
	for _, fu := range b.Fulfillments {
		if why := unfitFulfillment(&fu); why != "" {
			return r.brokenAnswer(id, r.describeCall(StepReadBooking, id), why)
		}
	}
	if why := notTicketed(b); why != "" {
		return r.invalidAbout(id, "Booking "+id+" at partner "+r.c.partner+" "+why)
	}

	if n := len(b.Fulfillments); n > legacy.MaxItems {
		return r.negative(tooManyTickets(id, r.c.partner, "has "+strconv.Itoa(n)+" fulfilments"))
	}
	reply := &legacy.TicketReply{Header: r.h, BookingRef: id}
	var total int64
	for i := range b.Fulfillments {
		fu := &b.Fulfillments[i]
		t := legacy.Ticket{FulfilmentRef: fu.ID, Status: string(fu.Status), TicketControlNumber: plain(fu.ControlNumber, 1000)}
		if !fulfillmentClosed(fu.Status) {
			docs, res := r.fulfillmentDocuments(ctx, b, fu, &t)
			if res != nil {
				return res
			}
			for _, d := range docs {
				total += int64(len(d.Content))
			}
			if total > r.c.maxTickets {
				return r.negative(&legacy.NegativeReply{Code: legacy.CodeDocumentTooLarge, BookingRef: id,
					Text: "The ticket documents of booking " + id + " at partner " + r.c.partner + " are more than " + strconv.FormatInt(r.c.maxTickets, 10) +
						" bytes together, more than one TicketReply carries; nothing of them is passed on."})
			}
			t.Documents = docs
		}
		reply.Tickets = append(reply.Tickets, t)
	}
	return ok(reply)
}

// notTicketed says why booking b has no ticket to give ("is only
// pre-booked (PREBOOKED)..."), or "" when it has a live fulfilment.
func notTicketed(b *osdm.Booking) string {
	if len(b.Fulfillments) == 0 {
		state := "not confirmed"
		if s := partsState(b); s != "" {
			state = string(s)
		}
		return "is " + state + ", not fulfilled: it has no ticket until it is confirmed."
	}
	for _, fu := range b.Fulfillments {
		if !fulfillmentClosed(fu.Status) {
			return ""
		}
	}
	return "is " + string(b.Fulfillments[0].Status) + " (fulfilment " + plain(b.Fulfillments[0].ID, 128) + "): it no longer has a ticket to give."
}

// partsState is the status every booked part of b has, "" when they
// differ or there are none.
func partsState(b *osdm.Booking) osdm.BookingPartStatus {
	var state osdm.BookingPartStatus
	for _, bo := range b.BookedOffers {
		for _, res := range bo.Reservations {
			if state != "" && res.Status != state {
				return ""
			}
			state = res.Status
		}
		for _, ad := range bo.Admissions {
			if state != "" && ad.Status != state {
				return ""
			}
			state = ad.Status
		}
	}
	return state
}

// fulfillmentDocuments reads the documents of live fulfilment fu of
// booking b (GET /fulfillments/{fulfillmentId}), updating t with what the
// fulfilment's own answer says, and returns them whole; or the Result
// that refuses the TicketRequest.
func (r *run) fulfillmentDocuments(ctx context.Context, b *osdm.Booking, fu *osdm.Fulfillment, t *legacy.Ticket) ([]legacy.Document, *Result) {
	id := b.ID
	if id == "" {
		id = fu.BookingRef
	}
	var body []byte
	params := map[string]string{osdm.ParamFulfillmentID: fu.ID}
	what := r.describeCall(StepReadFulfillment, "")
	what = strings.Replace(what, "{"+osdm.ParamFulfillmentID+"}", plain(fu.ID, 128), 1)
	base := r.c.paths[StepReadFulfillment]
	f := r.do(ctx, call{step: StepReadFulfillment, params: params, maxAnswer: r.c.documentsAnswer(), answer: &body})
	var docs []osdm.FulfillmentDocument
	complete := fu.ContentComplete
	switch {
	case f != nil && (f.status == http.StatusNotFound || f.status == http.StatusMethodNotAllowed || f.status == http.StatusNotImplemented):
		// A partner that does not serve GET /fulfillments/{id}: the
		// booking's answer is all there is.
		docs = bookingDocuments(b, fu)
		base = r.c.paths[StepReadBooking]
	case f != nil:
		return nil, r.failBooking(f, id)
	default:
		fr := new(osdm.FulfillmentResponse)
		if res := r.decodeDocuments(StepReadFulfillment, what, body, fr, id); res != nil {
			return nil, res
		}
		docs = fr.FulfillmentDocuments
		if ff := fr.Fulfillment; ff != nil {
			if ff.Status != "" {
				if !fulfillmentStatus(ff.Status) {
					return nil, r.brokenAnswer(id, what, "fulfilment "+plain(fu.ID, 128)+" has the status "+strconv.Quote(plain(string(ff.Status), 40))+", which is not an OSDM fulfilment status")
				}
				t.Status = string(ff.Status)
			}
			if ff.ControlNumber != "" {
				t.TicketControlNumber = plain(ff.ControlNumber, 1000)
			}
			if ff.ContentComplete != nil {
				complete = ff.ContentComplete
			}
			if len(docs) == 0 {
				docs = ff.DeprecatedDocuments
			}
		}
		if len(docs) == 0 {
			docs = bookingDocuments(b, fu)
		}
	}
	base = strings.Replace(base, "{"+osdm.ParamFulfillmentID+"}", url.PathEscape(fu.ID), 1)
	base = strings.Replace(base, "{"+osdm.ParamBookingID+"}", url.PathEscape(id), 1)

	status := osdm.FulfillmentStatus(t.Status)
	if fulfillmentClosed(status) {
		// Refunded or exchanged between the two reads: its documents
		// are no longer valid.
		return nil, nil
	}
	if len(docs) == 0 {
		if notIssued(status) || complete != nil && !*complete {
			return nil, r.negative(&legacy.NegativeReply{Code: legacy.CodeTicketNotReady, BookingRef: id, Retryable: true,
				Text: "Partner " + r.c.partner + " has confirmed booking " + id + " but not issued the documents of fulfilment " + plain(fu.ID, 128) +
					" (status " + plain(t.Status, 32) + ") yet; send the TicketRequest again later."})
		}
		// Fulfilled without a document: a ticketless fulfilment, whose
		// control number is the ticket.
		return nil, nil
	}
	if len(docs) > legacy.MaxItems {
		return nil, r.negative(tooManyTickets(id, r.c.partner, "has "+strconv.Itoa(len(docs))+" documents in fulfilment "+plain(fu.ID, 128)))
	}
	out := make([]legacy.Document, 0, len(docs))
	for i := range docs {
		d, res := r.document(ctx, id, fu.ID, i+1, base, &docs[i])
		if res != nil {
			return nil, res
		}
		out = append(out, d)
	}
	return out, nil
}

// notIssued reports a fulfilment status under which documents are still
// to come.
func notIssued(s osdm.FulfillmentStatus) bool {
	switch s {
	case osdm.FulfillmentConfirmed, osdm.FulfillmentAvailable, osdm.FulfillmentOnHold:
		return true
	}
	return false
}

// bookingDocuments are the documents booking b's answer gives fulfilment
// fu: those its fulfillmentDocumentRefs name in the top-level list, else
// its own deprecated list, else the whole top-level list when fu is the
// booking's only live fulfilment and no fulfilment names its documents.
func bookingDocuments(b *osdm.Booking, fu *osdm.Fulfillment) []osdm.FulfillmentDocument {
	if len(fu.FulfillmentDocumentRefs) > 0 {
		var out []osdm.FulfillmentDocument
		for _, ref := range fu.FulfillmentDocumentRefs {
			for _, d := range b.FulfillmentDocuments {
				if d.ID == ref {
					out = append(out, d)
					break
				}
			}
		}
		return out
	}
	if len(fu.DeprecatedDocuments) > 0 {
		return fu.DeprecatedDocuments
	}
	live := 0
	for _, other := range b.Fulfillments {
		if len(other.FulfillmentDocumentRefs) > 0 {
			return nil
		}
		if !fulfillmentClosed(other.Status) {
			live++
		}
	}
	if live == 1 {
		return b.FulfillmentDocuments
	}
	return nil
}

// document returns document n (1-based) of fulfilment fid whole: its
// content, or what its downloadLink (resolved against base, the path of
// the answer that gave it) answers through the route; checked against
// max_document and its format.
func (r *run) document(ctx context.Context, id, fid string, n int, base string, d *osdm.FulfillmentDocument) (legacy.Document, *Result) {
	name := "document " + strconv.Itoa(n) + " of fulfilment " + plain(fid, 128)
	content := d.Content
	if len(content) == 0 {
		if d.DownloadLink == "" {
			return legacy.Document{}, r.brokenDocument(id, name+" has neither content nor a downloadLink")
		}
		path, why := linkPath(base, d.DownloadLink)
		if why != "" {
			return legacy.Document{}, r.brokenDocument(id, name+" has a downloadLink that "+why)
		}
		var body []byte
		accept := "*/*"
		if d.Format != "" {
			accept = string(d.Format) + ", */*;q=0.1"
		}
		if f := r.do(ctx, call{step: StepDocument, path: path, accept: accept, maxAnswer: r.c.maxDocument, answer: &body}); f != nil {
			f.what = "D" + name[1:] + ": " + f.what
			res := r.failBooking(f, id)
			if f.status == http.StatusNotFound || f.status == http.StatusGone {
				// The link expired or was replaced: the booking read
				// again gives the current one.
				n := res.Reply.(*legacy.NegativeReply)
				n.Retryable = true
				n.Text += " The link may have expired: send the TicketRequest again."
			}
			return legacy.Document{}, res
		}
		// The answer's buffer is the Caller's until the exchange ends;
		// the reply outlives it.
		content = append([]byte(nil), body...)
	}
	if int64(len(content)) > r.c.maxDocument {
		return legacy.Document{}, r.negative(&legacy.NegativeReply{Code: legacy.CodeDocumentTooLarge, BookingRef: id,
			Text: r.lead(legacy.CodeDocumentTooLarge) + " Its " + name + " has " + strconv.Itoa(len(content)) + " bytes."})
	}
	if len(content) == 0 {
		return legacy.Document{}, r.brokenDocument(id, name+" is empty")
	}
	if !legacyFormat(string(d.Format)) || !legacyToken(string(d.Medium)) || !legacyToken(string(d.Type)) {
		return legacy.Document{}, r.brokenDocument(id, name+" has a format, medium or type that is not a MIME type or an OSDM code ("+
			strconv.Quote(plain(string(d.Format), 40))+", "+strconv.Quote(plain(string(d.Medium), 40))+", "+strconv.Quote(plain(string(d.Type), 40))+")")
	}
	if why := formatMismatch(string(d.Format), content); why != "" {
		return legacy.Document{}, r.brokenDocument(id, name+" "+why)
	}
	return legacy.Document{
		Format: string(d.Format), Medium: string(d.Medium), Type: string(d.Type),
		ControlNumber: plain(d.ControlNumber, 1000), Content: content,
	}, nil
}

// brokenDocument refuses a TicketRequest whose document the partner gave
// broken: PARTNER_UNAVAILABLE (the partner failed), not retryable (the
// same document would come again), naming what is wrong.
func (r *run) brokenDocument(id, what string) *Result {
	return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: id,
		Text: "Partner " + r.c.partner + " gave a broken ticket document for booking " + id + ": " + what +
			". Nothing of it is passed on; ask the partner to issue the document again."})
}

// brokenAnswer refuses a TicketRequest whose booking or fulfilment the
// partner answered with what a TicketReply cannot carry: PARTNER_UNAVAILABLE,
// not retryable (the partner would answer the same again).
func (r *run) brokenAnswer(id, what, why string) *Result {
	return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: id,
		Text: "Partner " + r.c.partner + " answered " + what + " with what a TicketReply cannot carry: " + why + ". Ask the partner to correct its answer."})
}

// unfitFulfillment says why fulfilment fu of a booking cannot become a
// Ticket (an id a FulfilmentRef cannot carry, a status OSDM does not
// have), or "".
func unfitFulfillment(fu *osdm.Fulfillment) string {
	switch {
	case !validRef(fu.ID):
		return "a fulfilment id " + strconv.Quote(plain(fu.ID, 64)) + " that a legacy FulfilmentRef cannot carry (1..128 printable ASCII characters, one path segment)"
	case !fulfillmentStatus(fu.Status):
		return "fulfilment " + fu.ID + " has the status " + strconv.Quote(plain(string(fu.Status), 40)) + ", which is not an OSDM fulfilment status"
	}
	return ""
}

// fulfillmentStatus reports one of the spec's fulfilment statuses (a
// closed enum).
func fulfillmentStatus(s osdm.FulfillmentStatus) bool {
	switch s {
	case osdm.FulfillmentAvailable, osdm.FulfillmentOnHold, osdm.FulfillmentConfirmed, osdm.FulfillmentFulfilled, osdm.FulfillmentCheckedIn,
		osdm.FulfillmentCancelled, osdm.FulfillmentReleased, osdm.FulfillmentRefunded, osdm.FulfillmentExchanged, osdm.FulfillmentExpired:
		return true
	}
	return false
}

// legacyToken reports what a legacy medium or document type carries:
// 1..64 of A-Z a-z 0-9 _ . : -.
func legacyToken(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// legacyFormat reports what a legacy document format carries: a MIME
// type of 1..128 printable ASCII characters without spaces.
func legacyFormat(s string) bool {
	return strings.Contains(s, "/") && legacy.ValidRef(s)
}

// decodeDocuments reads body, the answer of a ticket call, into out. A
// document content that is not base64 is a broken document; any other
// fault, an answer that is not the JSON OSDM defines.
func (r *run) decodeDocuments(step Step, what string, body []byte, out any, id string) *Result {
	err := decodeAnswer(body, out)
	if err == nil {
		return nil
	}
	var se *json.SemanticError
	if errors.As(err, &se) && strings.HasSuffix(string(se.JSONPointer), "/content") {
		return r.brokenDocument(id, "in the answer to "+what+", "+plain(string(se.JSONPointer), 120)+" is not base64")
	}
	return r.failBooking(&failure{step: step, code: legacy.CodePartnerUnavailable, status: http.StatusOK, uncertain: true,
		what: what + " answered 200 with a body that is not the JSON OSDM defines (" + plain(err.Error(), 120) + ")"}, id)
}

// documentsAnswer bounds an OSDM answer that may carry documents in
// base64: room for four of max_document, and 1 MiB for the rest.
func (c *Converter) documentsAnswer() int64 {
	return 4*int64(base64.StdEncoding.EncodedLen(int(c.maxDocument))) + 1<<20
}

// linkPath is the path and query of downloadLink resolved against base
// (the path of the answer that gave it), to be asked through the route;
// or why it cannot be.
func linkPath(base, link string) (string, string) {
	u, err := url.Parse(link)
	switch {
	case err != nil:
		return "", "is not a URI"
	case u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https":
		return "", "is not http or https"
	case u.User != nil:
		return "", "carries credentials"
	}
	ref := (&url.URL{Path: base}).ResolveReference(&url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery})
	p := ref.EscapedPath()
	if !strings.HasPrefix(p, "/") {
		return "", "has no path"
	}
	if ref.RawQuery != "" {
		p += "?" + ref.RawQuery
	}
	return p, ""
}

// formatMismatch says how content is not a document of format (a MIME
// type), "" when it is or the format is not one checked: a PDF starts
// with %PDF- and ends with %%EOF (a cut PDF does not), PNG, JPEG and
// pkpass (a ZIP) start with their signatures, JSON is valid JSON.
func formatMismatch(format string, content []byte) string {
	mt, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(format)), ";")
	switch strings.TrimSpace(mt) {
	case "application/pdf":
		if !strings.HasPrefix(string(content[:min(len(content), 5)]), "%PDF-") {
			return "is said to be application/pdf but does not start with %PDF-"
		}
		if !strings.Contains(string(content[max(0, len(content)-1024):]), "%%EOF") {
			return "is said to be application/pdf but has no %%EOF at its end (cut off?)"
		}
	case "image/png":
		if !hasPrefix(content, "\x89PNG\r\n\x1a\n") {
			return "is said to be image/png but is not a PNG"
		}
	case "image/jpeg":
		if !hasPrefix(content, "\xff\xd8\xff") {
			return "is said to be image/jpeg but is not a JPEG"
		}
	case "application/vnd.apple.pkpass":
		if !hasPrefix(content, "PK\x03\x04") {
			return "is said to be application/vnd.apple.pkpass but is not a ZIP archive"
		}
	case "application/json":
		if !jsontext.Value(content).IsValid() {
			return "is said to be application/json but is not JSON"
		}
	}
	return ""
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// tooManyTickets is the refusal of a TicketRequest whose booking id at
// partner has more fulfilments, or a fulfilment more documents, than one
// TicketReply carries (what says which, "has 101 fulfilments"): none is
// passed on, rather than some of them.
func tooManyTickets(id, partner, what string) *legacy.NegativeReply {
	return &legacy.NegativeReply{Code: legacy.CodeDocumentTooLarge, BookingRef: id,
		Text: "Booking " + id + " at partner " + partner + " " + what + ", more than the " + strconv.Itoa(legacy.MaxItems) +
			" one TicketReply carries; nothing of them is passed on."}
}
