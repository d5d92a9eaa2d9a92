package osdmlegacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// problemAnswer is the answer of p: its status and JSON problem body, with
// the Allow header p names, if any.
func problemAnswer(p *osdm.ProblemError) *Answer {
	b, err := json.Marshal(p.Body())
	if err != nil {
		b = []byte(`{"code":"` + osdm.CodeInternalError + `"}`)
	}
	h := http.Header{"Content-Type": {osdm.ContentTypeProblem}, "Cache-Control": {"no-store"}}
	if p.Allow != "" {
		h.Set("Allow", p.Allow)
	}
	return &Answer{Answer: osdm.Answer{Status: p.Status, Header: h, Body: b}, Problem: p}
}

// Restriction is one of the restrictions (docs/osdm_legacy.md) under
// which the reverse direction is realisable. A problem about one carries
// its Type URI and title, so a client can tell which restriction it hit.
type Restriction struct {
	// N is its number in docs/osdm_legacy.md's table (1..7).
	N int
	// Slug names it in the problem type URI.
	Slug string
	// Title states it.
	Title string
}

// The restrictions.
var (
	RestrictDirect       = Restriction{1, "journeys", "Journeys of trains from the timetable: direct, or with up to max_changes changes; no vias or return trips"}
	RestrictKnownTrain   = Restriction{2, "known-train", "The train is named (1..5 characters) or found in the timetable"}
	RestrictUICStations  = Restriction{3, "uic-stations", "Stations are UIC codes (urn:uic:stn:NNNNNNN or 7 digits)"}
	RestrictReservations = Restriction{4, "reservations-only", "Offers are reservations"}
	RestrictPassengers   = Restriction{5, "passengers", "1 to 9 passengers, each mapped to a legacy tariff by type and age"}
	RestrictOneOffer     = Restriction{6, "one-offer-per-booking", "One offer per trip (a train or a journey with changes), class and service code; a booking books one offer for all its passengers; no place selection"}
	restrictAfterSales   = Restriction{7, "after-sales", "A partial refund names passengers, an exchange covers every passenger; release and on-hold are not offered"}
)

// TypeURI is the problem type of a request outside r.
func (r Restriction) TypeURI() string {
	return "urn:caddy-osdm:osdm-legacy:restriction:" + r.Slug
}

// restricted is a 422 saying the request member at pointer is outside
// restriction r; code is osdm.CodeOfferOutOfBounds, osdm.CodeOfferPlaceUnknown or
// osdm.CodeOutOfBounds.
func restricted(r Restriction, code, pointer, detail string) *osdm.ProblemError {
	p := osdm.NewProblem(http.StatusUnprocessableEntity, code, "restriction "+strconv.Itoa(r.N)+" ("+r.Title+"): "+detail)
	p.Type = r.TypeURI()
	p.Title = r.Title
	return p.WithPointer(pointer)
}

// negativeProblems maps a legacy NegativeReply code to the OSDM problem
// answered for it: status, code, and a detail sentence of our own (the
// legacy Text is never passed on: it may carry internals). docs/mapping.md
// ("Legacy NegativeReply to OSDM problem") quotes it.
var negativeProblems = map[legacy.Code]struct {
	status int
	code   string
	detail string
}{
	legacy.CodeNoAvailability:       {http.StatusConflict, osdm.CodeInsufficientAvailability, "not enough places are left for the passengers"},
	legacy.CodeTrainNotFound:        {http.StatusNotFound, osdm.CodeTripNotFound, "the reservation system does not run this train on this date between these stations"},
	legacy.CodeOfferExpired:         {http.StatusNotFound, osdm.CodeOfferNotFound, "the offer is no longer bookable"},
	legacy.CodeBookingNotFound:      {http.StatusNotFound, osdm.CodeBookingNotFound, "the reservation system holds no such booking"},
	legacy.CodeAlreadyCancelled:     {http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "the booking was cancelled before"},
	legacy.CodeExchangeNotSupported: {http.StatusNotImplemented, osdm.CodeNotImplemented, "exchange is not offered"},
	legacy.CodeExchangeNotPossible:  {http.StatusConflict, osdm.CodeRejected, "the reservation system does not allow this exchange"},
	legacy.CodeUnsupportedMessage:   {http.StatusNotImplemented, osdm.CodeNotImplemented, "the reservation system does not take this kind of request"},
	legacy.CodeInvalidMessage:       {http.StatusBadGateway, osdm.CodeBadGateway, "the reservation system refused the request as invalid"},
	legacy.CodePartnerRejected:      {http.StatusConflict, osdm.CodeRejected, "the reservation system refused the request"},
	legacy.CodePartnerUnavailable:   {http.StatusServiceUnavailable, osdm.CodeServiceUnavailable, "the reservation system is unavailable; try again later"},
	legacy.CodePartnerTimeout:       {http.StatusGatewayTimeout, osdm.CodeTimeout, "the reservation system did not answer in time; try again later"},
	legacy.CodeAuthenticationFailed: {http.StatusBadGateway, osdm.CodeBadGateway, "the reservation system could not be used"},
	legacy.CodeBookingRolledBack:    {http.StatusServiceUnavailable, osdm.CodeServiceUnavailable, "the reservation system could not complete the booking and undid it; try again"},
}

// NegativeProblem is the OSDM problem for a legacy NegativeReply; subject
// ("train 9203 on 2026-12-01", "" for none) is prefixed to the detail.
// A code the table does not know is a 502.
func NegativeProblem(nr *legacy.NegativeReply, subject string) *osdm.ProblemError {
	m, ok := negativeProblems[nr.Code]
	if !ok {
		m.status, m.code, m.detail = http.StatusBadGateway, osdm.CodeBadGateway, "the reservation system refused the request"
	}
	detail := m.detail
	if subject != "" {
		detail = subject + ": " + detail
	}
	p := osdm.NewProblem(m.status, m.code, detail)
	p.Retryable = nr.Retryable || nr.Code.Retryable()
	return p
}

// sendProblem is the OSDM problem for a legacy message that got no usable
// reply: 504 slow, 502 garbage, 503 down. The detail names the partner and
// subject, never the cause's text.
func sendProblem(partner string, err error, subject string) *osdm.ProblemError {
	var p *osdm.ProblemError
	switch kindOf(err) {
	case ErrLegacySlow:
		p = osdm.NewProblem(http.StatusGatewayTimeout, osdm.CodeTimeout, "the reservation system "+partner+" did not answer in time; try again later")
	case ErrLegacyGarbage:
		p = osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, "the reservation system "+partner+" gave an answer that could not be read")
	default:
		p = osdm.NewProblem(http.StatusServiceUnavailable, osdm.CodeServiceUnavailable, "the reservation system "+partner+" is unavailable; try again later")
	}
	if subject != "" {
		p.Detail = subject + ": " + p.Detail
	}
	p.Retryable = true
	return p
}

// asProblem returns err as a *osdm.ProblemError: itself, or a 500 that says nothing
// of the cause (a store failure, a bug) for any other error.
func asProblem(err error) *osdm.ProblemError {
	var p *osdm.ProblemError
	if errors.As(err, &p) {
		return p
	}
	return osdm.NewProblem(http.StatusInternalServerError, osdm.CodeInternalError, "the OSDM provider failed; try again later")
}

// bookingNotFound is the 404 of an unknown booking id.
func bookingNotFound(id string) *osdm.ProblemError {
	return osdm.NewProblem(http.StatusNotFound, osdm.CodeBookingNotFound, "no booking "+strconv.Quote(shorten(id, 40))+" is known")
}

// shorten cuts s to n bytes for a problem text.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// underWay is the retryable 409 of a call that finds subject's legacy
// messages under way ("a message" of a booking, "messages" of a journey
// or of its exchange): the same call gets past once they are answered.
func underWay(subject, messages string) *osdm.ProblemError {
	p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, subject+" has "+messages+" to the reservation system under way; retry in a few seconds")
	p.Retryable = true
	return p
}

// decodeBody reads body into v (one JSON object, nothing after it) or
// answers a 400 that points at the member of the wrong type.
func decodeBody(body []byte, v any) *osdm.ProblemError {
	if len(bytes.TrimSpace(body)) == 0 {
		return osdm.Invalid(osdm.CodeInvalidRequest, "", "the request needs a JSON body")
	}
	// encoding/json v2 reads null as the zero value: a null body or array
	// item would pass as an empty one.
	if ptr, null := jsontree.NullItem(body); null {
		if ptr == "" {
			return osdm.Invalid(osdm.CodeInvalidRequest, "", "the body must be a JSON object, not null")
		}
		return osdm.Invalid(osdm.CodeInvalidRequest, "#"+ptr, "must not be null (an array item is a value)")
	}
	// encoding/json v2's rules: member names matched exactly, a repeated
	// member, invalid UTF-8 or a second value refused.
	if err := jsonv2.Unmarshal(body, v); err != nil {
		var se *jsonv2.SemanticError
		if errors.As(err, &se) && se.JSONPointer != "" && se.GoType != nil && se.JSONKind != 0 {
			kind := se.GoType.Kind().String()
			want, got := jsonKind(kind), jsonKindName(se.JSONKind)
			if want == got {
				// A number the member cannot hold: not whole, or out of
				// its range.
				what := "a number"
				if strings.HasPrefix(kind, "int") || strings.HasPrefix(kind, "uint") {
					what = "a whole number"
				}
				return osdm.Invalid(osdm.CodeInvalidRequest, "#"+string(se.JSONPointer), "must be "+what+" within range")
			}
			return osdm.Invalid(osdm.CodeInvalidRequest, "#"+string(se.JSONPointer), "must be a JSON "+want+", not "+got)
		}
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName) {
			return osdm.Invalid(osdm.CodeInvalidRequest, "#"+string(syn.JSONPointer), "appears twice")
		}
		return osdm.Invalid(osdm.CodeInvalidRequest, "", "the body is not a JSON object of this operation")
	}
	return nil
}

// jsonKindName names a JSON kind as encoding/json v1's type errors did.
func jsonKindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "value"
}

// jsonKind names the JSON value a Go kind is read from.
func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	case "bool":
		return "boolean"
	}
	return "number"
}
