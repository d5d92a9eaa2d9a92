package osdmspec

import (
	"net/http"
	"strings"
	"testing"
)

// A minimal valid 3.9 offer response with one reservation offer part (a
// subtype of AbstractOfferPart, so it exercises the allOf flattening).
const offerPartResponse = `{"offers":[{"offerId":"o1","createdOn":"2026-05-01T10:00:00Z","preBookableUntil":"2026-05-01T10:30:00Z","passengerRefs":["p1"],
 "reservationOfferParts":[{"objectType":"ReservationOfferPart","id":"r1","createdOn":"2026-05-01T10:00:00Z","validFrom":"2026-05-01T10:00:00Z",
  "price":{"currency":"EUR","amount":500},"offerMode":"INDIVIDUAL","passengerRefs":["p1"],"refundable":"YES","exchangeable":"NO","products":[],
  "availableFulfillmentOptions":[{"type":"ETICKET","media":"PDF_A4"}],"numericAvailability":3}]}]}`

func TestInheritanceKeepsBaseAndSubtypeConstraints(t *testing.T) {
	for _, v := range []Version{V39, V310} {
		r := &recorder{}
		ValidateResponse(r, v, http.MethodPost, "/offers", 200, nil, []byte(offerPartResponse))
		if r.Failed() {
			t.Fatalf("%s: valid offer part refused:\n%s", v, r.text())
		}
		cases := map[string]struct{ from, to, want string }{
			"base field missing":     {`"id":"r1",`, ``, "/offers/0/reservationOfferParts/0"},
			"subtype field bad type": {`"numericAvailability":3`, `"numericAvailability":3,"availablePlaces":{}`, "/offers/0/reservationOfferParts/0/availablePlaces"},
			"unknown property":       {`"numericAvailability":3`, `"numericAvailability":3,"seatColour":"red"`, "seatColour"},
			"base closed enum":       {`"offerMode":"INDIVIDUAL"`, `"offerMode":"SOLO"`, "/offers/0/reservationOfferParts/0/offerMode"},
		}
		for name, c := range cases {
			body := strings.Replace(offerPartResponse, c.from, c.to, 1)
			if body == offerPartResponse {
				t.Fatalf("%s: replacement did not apply", name)
			}
			mustFail(t, func(tb testing.TB) {
				ValidateResponse(tb, v, http.MethodPost, "/offers", 200, nil, []byte(body))
			}, c.want)
		}
	}
}

func TestFormatsBite(t *testing.T) {
	// uri: Problem.instance must be absolute; duration: Trip.duration.
	mustFail(t, func(tb testing.TB) {
		ValidateSchema(tb, V39, "Problem", []byte(`{"type":"no scheme here"}`))
	}, "/type")
	r := &recorder{}
	ValidateSchema(r, V39, "Problem", []byte(`{"type":"about:blank","instance":"urn:uuid:6f1c8a4e-2b7d-5e3f-9a10-4c5d6e7f8a9b"}`))
	if r.Failed() {
		t.Fatalf("absolute URIs refused:\n%s", r.text())
	}
	for _, d := range []string{"PT2H30M", "P1D", "PT0S", "P2W"} {
		if err := isoDuration(d); err != nil {
			t.Errorf("isoDuration(%q) = %v", d, err)
		}
	}
	for _, d := range []string{"", "P", "PT", "2h30m", "PT2H30", "P1DT"} {
		if isoDuration(d) == nil {
			t.Errorf("isoDuration(%q) accepted", d)
		}
	}
	trip := `{"id":"t","duration":"%s","startTime":"2026-05-04T08:30:00+02:00","endTime":"2026-05-04T11:00:00+02:00","transfers":0,"legs":[{"id":"l"}]}`
	mustFail(t, func(tb testing.TB) {
		ValidateSchema(tb, V39, "Trip", []byte(strings.Replace(trip, "%s", "2h30m", 1)))
	}, "/duration")
	r = &recorder{}
	ValidateSchema(r, V39, "Trip", []byte(strings.Replace(trip, "%s", "PT2H30M", 1)))
	if r.Failed() {
		t.Fatalf("valid trip refused:\n%s", r.text())
	}
}
