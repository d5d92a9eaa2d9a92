package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// scenario is one measured configuration: what the front Caddy runs (for
// run.sh), what each request is, and what a good answer looks like.
type scenario struct {
	// name is A, B, C, Dconv or Ddirect.
	name string
	// title says what is measured, for the report.
	title string
	// front is the front Caddyfile bench/run.sh starts for it. A "bare"
	// front adds no token, so the driver sends its own (authorized).
	front string
	// needsOffers: every request books a fresh offer made beforehand.
	needsOffers bool
	// bookingPax > 0: every request acts on a fresh fulfilled booking of
	// that many adults, made beforehand.
	bookingPax int
	// targets returns the request generator of a scenario whose requests
	// need nothing made beforehand (A, B, C).
	targets func(e *env) (vegeta.Targeter, error)
	// fresh returns the requests acting on e's offers or bookings, one
	// each, for the scenarios that need them (needsOffers, bookingPax);
	// the driver makes them between attacks (supply.go).
	fresh func(e *env) ([]vegeta.Target, error)
	// check says what is wrong with a 2xx answer, "" if nothing.
	check func(body []byte) string
}

// env is what a scenario's requests need.
type env struct {
	front  string   // front Caddy base URL
	offers []string // fresh offers for the D scenarios
	// bookings are fresh fulfilled bookings for the after-sales scenarios.
	bookings []madeBooking
	ids      *messageIDs
}

// scenarios lists the scenarios in the order bench/run.sh runs them.
var scenarios = []*scenario{
	{
		name: "A", front: "bare",
		title: "OSDM POST /offers through a bare reverse_proxy (the floor)",
		targets: func(e *env) (vegeta.Targeter, error) {
			call, err := osdmCall(availabilityRequest("A-capture"))
			if err != nil {
				return nil, err
			}
			return constant(e.front+call.Path, call.Body, jsonHeader("")), nil
		},
		check: wantAll(`"offerId"`),
	},
	{
		name: "B", front: "convert",
		title: "legacy XML AvailabilityRequest through osdm_convert + osdm_token + reverse_proxy",
		targets: func(e *env) (vegeta.Targeter, error) {
			body, err := encodeXML(availabilityRequest(idPlaceholder))
			if err != nil {
				return nil, err
			}
			return perMessage(e.front+"/partners/alpine", body, xmlHeader(), e.ids), nil
		},
		check: wantAll("<AvailabilityReply", "<Offer>"),
	},
	{
		name: "C", front: "token",
		title: "OSDM POST /offers through osdm_token + reverse_proxy (the token layer alone)",
		targets: func(e *env) (vegeta.Targeter, error) {
			call, err := osdmCall(availabilityRequest("C-capture"))
			if err != nil {
				return nil, err
			}
			return constant(e.front+call.Path, call.Body, jsonHeader("")), nil
		},
		check: wantAll(`"offerId"`),
	},
	{
		name: "Ddirect", front: "bare", needsOffers: true,
		title: "POST /bookings + POST /bookings/{id}/fulfillments sent directly through the bare proxy (D's floor)",
		fresh: func(e *env) ([]vegeta.Target, error) {
			ts := make([]vegeta.Target, len(e.offers))
			for i, offer := range e.offers {
				id := e.ids.next()
				call, err := osdmCall(bookingRequest(id, offer))
				if err != nil {
					return nil, err
				}
				h := call.Header.Clone()
				h.Set(headerThenFulfil, "1")
				h.Set(headerFulfilIdemKey, converter.IdempotencyKey(partnerName, id, converter.StepFulfillments))
				ts[i] = vegeta.Target{Method: call.Method, URL: e.front + call.Path, Body: call.Body, Header: h}
			}
			return ts, nil
		},
		check: wantAll(`"fulfillments"`, `"FULFILLED"`),
	},
	{
		name: "Dconv", front: "convert", needsOffers: true,
		title: "legacy XML BookingRequest with OfferRef through osdm_convert + osdm_token + reverse_proxy (2 OSDM calls)",
		fresh: func(e *env) ([]vegeta.Target, error) {
			ts := make([]vegeta.Target, len(e.offers))
			for i, offer := range e.offers {
				body, err := encodeXML(bookingRequest(e.ids.next(), offer))
				if err != nil {
					return nil, err
				}
				ts[i] = vegeta.Target{Method: http.MethodPost, URL: e.front + "/partners/alpine", Body: body, Header: xmlHeader()}
			}
			return ts, nil
		},
		check: wantAll("<BookingReply", "<Status>FULFILLED</Status>"),
	},
	{
		name: "Edirect", front: "bare", bookingPax: 1,
		title: "the OSDM calls of a legacy exchange (the booking read back, exchange offers, exchange operation, fulfilment) sent directly through the bare proxy (E's floor)",
		fresh: func(e *env) ([]vegeta.Target, error) {
			return afterSales(e, e.front, true, exchangeRequest)
		},
		check: wantAll("<BookingReply", "<Status>FULFILLED</Status>", "<ExchangeOf>"),
	},
	{
		name: "Econv", front: "convert", bookingPax: 1,
		title: "legacy XML BookingRequest with ExchangeOf through osdm_convert + osdm_token + reverse_proxy",
		fresh: func(e *env) ([]vegeta.Target, error) {
			return afterSales(e, e.front+"/partners/alpine", false, exchangeRequest)
		},
		check: wantAll("<BookingReply", "<Status>FULFILLED</Status>", "<ExchangeOf>"),
	},
	{
		name: "Pdirect", front: "bare", bookingPax: 2,
		title: "the OSDM calls of a partial cancellation (the booking read back, a refund offer for one passenger, its confirmation) sent directly through the bare proxy (P's floor)",
		fresh: func(e *env) ([]vegeta.Target, error) {
			return afterSales(e, e.front, true, partialCancel)
		},
		check: wantAll("<CancelReply", "<Status>PARTIALLY_REFUNDED</Status>"),
	},
	{
		name: "Pconv", front: "convert", bookingPax: 2,
		title: "legacy XML CancelRequest with one Place of a 2-place booking through osdm_convert + osdm_token + reverse_proxy",
		fresh: func(e *env) ([]vegeta.Target, error) {
			return afterSales(e, e.front+"/partners/alpine", false, partialCancel)
		},
		check: wantAll("<CancelReply", "<Status>PARTIALLY_REFUNDED</Status>"),
	},
}

// afterSales sends one message per fresh booking: through the front's
// converter, or (direct) converted in the driver and sent as OSDM calls
// through the bare front with the driver's token (directTransport).
func afterSales(e *env, url string, direct bool, msg func(id string, b madeBooking) legacy.Message) ([]vegeta.Target, error) {
	ts := make([]vegeta.Target, len(e.bookings))
	for i, b := range e.bookings {
		body, err := encodeXML(msg(e.ids.next(), b))
		if err != nil {
			return nil, err
		}
		h := xmlHeader()
		if direct {
			h.Set(headerDirect, "1")
		}
		ts[i] = vegeta.Target{Method: http.MethodPost, URL: url, Body: body, Header: h}
	}
	return ts, nil
}

// scenarioNamed finds a scenario.
func scenarioNamed(name string) (*scenario, error) {
	var names []string
	for _, s := range scenarios {
		if strings.EqualFold(s.name, name) {
			return s, nil
		}
		names = append(names, s.name)
	}
	return nil, fmt.Errorf("unknown scenario %q (want one of %s)", name, strings.Join(names, ", "))
}

func xmlHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/xml")
	return h
}

// constant sends the same request every time.
func constant(url string, body []byte, h http.Header) vegeta.Targeter {
	return func(t *vegeta.Target) error {
		*t = vegeta.Target{Method: http.MethodPost, URL: url, Body: body, Header: h}
		return nil
	}
}

// perMessage sends body with idPlaceholder replaced by a new messageId
// each time.
func perMessage(url string, body []byte, h http.Header, ids *messageIDs) vegeta.Targeter {
	at := bytes.Index(body, []byte(idPlaceholder))
	return func(t *vegeta.Target) error {
		b := bytes.Clone(body)
		if at >= 0 {
			copy(b[at:], ids.next())
		}
		*t = vegeta.Target{Method: http.MethodPost, URL: url, Body: b, Header: h}
		return nil
	}
}

// each sends every target once, then ends the attack (ErrNoTargets):
// a booked offer cannot be booked again. used says how many it handed
// out.
func each(ts []vegeta.Target) (tr vegeta.Targeter, used func() int) {
	var n atomic.Int64
	return func(t *vegeta.Target) error {
			i := n.Add(1) - 1
			if i >= int64(len(ts)) {
				return vegeta.ErrNoTargets
			}
			*t = ts[i]
			return nil
		}, func() int {
			return int(min(n.Load(), int64(len(ts))))
		}
}

// wantAll checks that a body holds every marker.
func wantAll(markers ...string) func([]byte) string {
	return func(body []byte) string {
		for _, m := range markers {
			if !bytes.Contains(body, []byte(m)) {
				return fmt.Sprintf("answer without %s: %.200s", m, body)
			}
		}
		return ""
	}
}
