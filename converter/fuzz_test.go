package converter

import (
	"context"
	"net/http"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// validAnswers are working answers to every step, from the golden cases.
func validAnswers(tb testing.TB) map[Step]*Answer {
	json := http.Header{"Content-Type": {"application/json"}}
	a := func(dir, name string) *Answer {
		return &Answer{Status: http.StatusOK, Header: json, Body: readFile(tb, "testdata/golden/"+dir, name)}
	}
	return map[Step]*Answer{
		StepOffers:        a("availability", "offers.json"),
		StepTripOffers:    a("availability", "offers.json"),
		StepBooking:       a("booking_offer_ref", "booking.json"),
		StepFulfillments:  a("booking_offer_ref", "fulfillments.json"),
		StepReadBooking:   a("cancel_reason", "booking.json"),
		StepRefundOffers:  a("cancel_reason", "refund-offers.json"),
		StepRefundOffer:   a("cancel_reason", "refund-offer.json"),
		StepDeleteBooking: {Status: http.StatusNoContent, Header: http.Header{}},
	}
}

// FuzzPartnerAnswer lets the partner answer one call of an exchange with
// any status and any bytes, the other calls working: Convert never panics,
// always replies, follows the status rule, and its reply is a valid legacy
// message in both forms.
func FuzzPartnerAnswer(f *testing.F) {
	valid := validAnswers(f)
	for _, body := range [][]byte{
		nil, []byte("{"), []byte("null"), []byte("[]"), []byte(`{"offers":null}`),
		[]byte(`{"offers":[{"offerId":"o 1"}]}`),
		[]byte(`{"offers":[{"offerId":"o","offerSummary":{"minimalPrice":{"currency":"EUR","amount":9223372036854775807,"scale":0}}}]}`),
		[]byte(`{"booking":{"id":"b-1","bookedOffers":[{"reservations":[{"placeAllocation":{"reservedPlaces":[{"coachNumber":"\u0000","placeNumbers":["","\n"]}]}}]}]}}`),
		[]byte(`{"problems":[{"code":"urn:uic:problem:ALTERNATIVE_SYSTEM_PROPOSAL","alternativeSystemProposals":[{"systemOperatorCode":"urn:uic:rics:1080","priority":-1,"scope":[{"vehicleNumber":"<&>"}]}]}]}`),
		[]byte(`{"fulfillments":[{"id":"f","status":"FULFILLED","controlNumber":"` + "\xff\xfe" + `"}]}`),
		valid[StepOffers].Body, valid[StepBooking].Body, valid[StepReadBooking].Body,
	} {
		for call := range 4 {
			for _, status := range []int{200, 202, 204, 404, 409, 503} {
				f.Add(uint8(call), uint8(0), status, body)
				f.Add(uint8(call), uint8(1), status, body)
				f.Add(uint8(call), uint8(2), status, body)
			}
		}
	}
	reason := 2
	requests := []legacy.Request{
		bookingRequest("FZ-1", ""),
		cancelRequest("FZ-2", "b-4711", &reason),
		availabilityRequest("FZ-3"),
	}
	c := testConverter(f, Config{})
	f.Fuzz(func(t *testing.T, call, kind uint8, status int, body []byte) {
		n := 0
		x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) {
			n++
			if n-1 == int(call%4) {
				return &Answer{Status: status, Header: http.Header{}, Body: body}, nil
			}
			return valid[c.Step], nil
		})
		res := c.Convert(context.Background(), requests[int(kind)%len(requests)], x)
		checkReply(t, res)
		if n > 5 {
			t.Errorf("%d calls", n)
		}
	})
}
