package osdmlegacy

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// FuzzBookingRequestReaders feeds arbitrary bodies to the readers of
// POST /bookings, POST .../refund-offers, PATCH .../refund-offers/{id},
// PATCH .../passengers/{id}, POST .../exchange-offers and POST
// .../exchange-operations. None may panic; each either accepts (and then
// what it accepts keeps the restrictions: one offer, at most 9
// passengers, names the legacy system takes, a partial refund by
// passengers only, one exchange offer without selections) or refuses with
// a 400 or 422 problem whose pointer points into the request.
func FuzzBookingRequestReaders(f *testing.F) {
	seeds := []string{
		`{"offers":[{"offerId":"of-AAAAAAAAAAAAAAAAAAAAAA","passengerRefs":["p1","p2"]}],"passengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30,"detail":{"firstName":"Ada","lastName":"Lovelace","contact":{"email":"a@b.c","phoneNumber":"+41791234567"}}},{"externalRef":"p2","type":"CHILD","dateOfBirth":"2018-02-28"}],"externalRef":"x"}`,
		`{"offers":[{"offerId":"a","passengerRefs":["p"]},{"offerId":"b","passengerRefs":["p"]}],"passengerSpecifications":[{"externalRef":"p","type":"ADULT"}]}`,
		`{"offers":[{"offerId":"a","passengerRefs":["p"],"placeSelections":[{}]}],"passengerSpecifications":[{"externalRef":"p","type":"ADULT"}]}`,
		`{"offers":"x"}`,
		`{"fulfillmentIds":["fu-1"],"overruleCode":"STRIKE"}`,
		`{"fulfillmentIds":["fu-1"],"refundSpecifications":[{"fulfillmentId":"fu-1","passengerIds":["p1"]}]}`,
		`{"fulfillmentIds":["fu-1"],"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"8500010"},"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"8503000"},"departureTime":"2030-03-11T08:00:00+01:00","parameters":{"dataFilter":{"vehicleFilter":{"vehicleNumbers":["708"]}}}},"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30}],"overruleCode":"STRIKE"}`,
		`{"fulfillmentIds":["fu-1"],"exchangeFee":{"currency":"EUR","amount":1,"scale":0},"anonymousPassengerSpecifications":[]}`,
		`{"exchangeOffers":[{"offerId":"of-x","passengerRefs":["p1"]}]}`,
		`{"exchangeOffers":[{"offerId":"of-x","passengerRefs":["p1"],"placeSelections":[{}]}]}`,
		`{"status":"CONFIRMED"}`,
		`{"status":"PROPOSED"}`,
		`{"id":"p1","externalRef":"p1","type":"ADULT","dateOfBirth":"1990-02-30","detail":{"firstName":"\u0007","lastName":"B"}}`,
		`{"detail":{"firstName":"` + strings.Repeat("é", 71) + `","lastName":"x"}}`,
		`{} {}`, `null`, `[]`, ``,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkProblem := func(reader string, p *osdm.ProblemError) {
			if p.Status != http.StatusBadRequest && p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%s: status %d", reader, p.Status)
			}
			for _, ptr := range p.Pointers {
				if ptr.RequestPointer != "" && !strings.HasPrefix(ptr.RequestPointer, "#") {
					t.Fatalf("%s: pointer %q", reader, ptr.RequestPointer)
				}
			}
			if _, err := json.Marshal(p.Body()); err != nil {
				t.Fatalf("%s: problem does not marshal: %v", reader, err)
			}
			if !utf8.ValidString(p.Detail) && utf8.ValidString(string(body)) {
				t.Fatalf("%s: detail is not UTF-8", reader)
			}
		}
		if req, p := readBookingRequest(body); p != nil {
			checkProblem("booking", p)
		} else {
			if len(req.Offers) != 1 || req.Offers[0].OfferID == "" || len(req.Offers[0].PassengerRefs) == 0 {
				t.Fatalf("accepted offers %+v", req.Offers)
			}
			if n := len(req.PassengerSpecifications); n < 1 || n > maxPassengers {
				t.Fatalf("accepted %d passengers", n)
			}
			for _, ps := range req.PassengerSpecifications {
				if d := ps.Detail; d != nil && (d.LastName != "" && legacy.NameFault(d.LastName) != "" || d.FirstName != "" && legacy.NameFault(d.FirstName) != "") {
					t.Fatalf("accepted a name the legacy system refuses: %+v", d)
				}
			}
			// What is accepted is accepted again once written back.
			b, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, p := readBookingRequest(b); p != nil {
				t.Fatalf("accepted %s, refused its own form %s: %v", body, b, p)
			}
		}
		if req, p := readRefundOfferRequest(body); p != nil {
			checkProblem("refund offer", p)
		} else if len(req.FulfillmentIDs) == 0 || len(req.RefundSpecifications) != 0 && len(req.PassengerIDs) == 0 {
			t.Fatalf("accepted refund offer request %+v", req)
		} else {
			for _, rs := range req.RefundSpecifications {
				if len(rs.BookingPartIDs) != 0 || len(rs.PassengerIDs) == 0 || rs.FulfillmentID == "" {
					t.Fatalf("accepted refund specification %+v", rs)
				}
			}
		}
		if req, p := readRefundOfferPatch(body); p != nil {
			checkProblem("refund offer patch", p)
		} else if req.Status != "CONFIRMED" {
			t.Fatalf("accepted status %q", req.Status)
		}
		if _, p := readPassengerPatch(body); p != nil {
			checkProblem("passenger", p)
		}
		if ask, p := readExchangeOfferRequest(body); p != nil {
			checkProblem("exchange offers", p)
		} else if len(ask.fulfillmentIDs) == 0 || ask.search == nil || len(ask.search.passengers) == 0 {
			t.Fatalf("accepted exchange offer request %+v", ask)
		}
		if sel, p := readExchangeOperationRequest(body); p != nil {
			checkProblem("exchange operation", p)
		} else if sel.OfferID == "" {
			t.Fatalf("accepted exchange operation %+v", sel)
		}
	})
}

// FuzzBookingCalls runs arbitrary bodies through the whole façade against
// the legacy sandbox: POST /bookings (with "$OFFER" replaced by a live
// offer's id), then the same body as a passenger change, a refund offer
// request and a refund confirmation of the booking made, if any. No call
// may panic or answer a 5xx, every answer is a problem or valid JSON, and
// the legacy system and the store always agree.
func FuzzBookingCalls(f *testing.F) {
	for _, s := range []string{
		`{"offers":[{"offerId":"$OFFER","passengerRefs":["p-adult"]}],"passengerSpecifications":[{"externalRef":"p-adult","type":"ADULT","age":30,"detail":{"firstName":"A","lastName":"B"}}]}`,
		`{"offers":[{"offerId":"$OFFER","passengerRefs":["p-adult","p-adult"]}],"passengerSpecifications":[{"externalRef":"p-adult","type":"ADULT"}]}`,
		`{"offers":[{"offerId":"$OFFER","passengerRefs":["p-adult"]}],"passengerSpecifications":[{"externalRef":"p-adult","type":"ADULT","age":31}]}`,
		`{"fulfillmentIds":["x"],"overruleCode":"STRIKE"}`,
		`{"status":"CONFIRMED"}`,
		`{"detail":{"firstName":"Ada","lastName":"King","contact":{"email":"a@b"}}}`,
	} {
		f.Add([]byte(s))
	}
	e := newBookEnv(f, memKind, nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		e.t = t
		o := e.offer(strconv.Itoa(1 + int(e.legacy.attempts()%90000)))
		b := []byte(strings.ReplaceAll(string(body), "$OFFER", o.ID))
		h := http.Header{"Content-Type": {"application/json"}}
		serve := func(method, path string, body []byte) *Answer {
			a := e.f.serve(context.Background(), e.legacy, method, path, h, body)
			if a.Status >= 500 {
				t.Fatalf("%s %s: %d %s", method, path, a.Status, a.Body)
			}
			if a.Status != http.StatusNoContent && !json.Valid(a.Body) {
				t.Fatalf("%s %s: body is not JSON: %q", method, path, a.Body)
			}
			return a
		}
		a := serve("POST", "/bookings", b)
		var br osdm.BookingResponse
		if a.Status == 200 && json.Unmarshal(a.Body, &br) == nil && br.Booking != nil {
			id := br.Booking.ID
			serve("PATCH", "/bookings/"+id+"/passengers/p1", b)
			serve("POST", "/bookings/"+id+"/fulfillments", nil)
			serve("POST", "/bookings/"+id+"/refund-offers", []byte(strings.ReplaceAll(string(body), "x", "fu-"+strings.TrimPrefix(id, bookingIDPrefix))))
			serve("PATCH", "/bookings/"+id+"/refund-offers/ro-x", b)
			serve("DELETE", "/bookings/"+id, nil)
		}
		e.assertAgree(true)
	})
}
