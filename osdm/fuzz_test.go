package osdm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseOSDMResponses feeds arbitrary partner bodies to every response
// type we parse and to what the converter then does with them (price
// formatting, problem inspection). Parsing may fail; it must never panic.
// Seeds: the handwritten responses in testdata/.
func FuzzParseOSDMResponses(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"amount":-9223372036854775808,"scale":18,"currency":"EUR"}`))
	f.Add([]byte(`{"booking":null,"problems":[null]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var offers OfferCollectionResponse
		if json.Unmarshal(body, &offers) == nil {
			for _, o := range offers.Offers {
				for _, p := range o.ReservationOfferParts {
					_, _ = p.Price.Decimal()
					_ = o.Product(p.ID)
				}
			}
			inspectProblems(offers.Problems)
		}
		var booking BookingResponse
		if json.Unmarshal(body, &booking) == nil {
			if b := booking.Booking; b != nil {
				if b.ProvisionalPrice != nil {
					_, _ = b.ProvisionalPrice.Decimal()
				}
				for _, bo := range b.BookedOffers {
					for _, r := range bo.Reservations {
						_, _ = r.Price.Decimal()
					}
				}
			}
			inspectProblems(booking.Problems)
		}
		var problem Problem
		if json.Unmarshal(body, &problem) == nil {
			inspectProblems([]Problem{problem})
		}
		var price Price
		if json.Unmarshal(body, &price) == nil {
			if s, err := price.Decimal(); err == nil && s == "" {
				t.Fatalf("empty decimal for %+v", price)
			}
		}
		for _, v := range []any{&FulfillmentCollectionResponse{}, &RefundOfferCollectionResponse{}, &RefundOfferResponse{}} {
			_ = json.Unmarshal(body, v)
		}
	})
}

func inspectProblems(problems []Problem) {
	for i := range problems {
		_ = problems[i].Error()
		_ = problems[i].IsAlternativeSystemProposal()
	}
}
