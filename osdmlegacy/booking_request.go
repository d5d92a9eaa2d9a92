package osdmlegacy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// Limits on what a passenger's data may hold. Names follow the legacy
// Passenger rule (legacy.NameFault), so a name the BookingRequest carries
// is one the legacy system takes; an email (kept by the façade, never
// sent to the legacy system) is plain text with an @ of at most 254 bytes,
// the longest address SMTP carries.
const (
	maxEmailBytes = 254
	maxPhoneBytes = 32
	maxRefBytes   = 256
)

// bookingBody is POST /bookings as read: the members the façade uses, and
// the ones it refuses when present (restriction 6: no place selection, no
// optional parts; promotions are not a legacy notion).
type bookingBody struct {
	Offers                  []offerSelectionBody          `json:"offers"`
	PassengerSpecifications []osdm.PassengerSpecification `json:"passengerSpecifications"`
	ExternalRef             string                        `json:"externalRef"`
	PromotionCodes          json.RawMessage               `json:"promotionCodes"`
}

type offerSelectionBody struct {
	OfferID                       string          `json:"offerId"`
	PassengerRefs                 []string        `json:"passengerRefs"`
	PlaceSelections               json.RawMessage `json:"placeSelections"`
	OptionalReservationSelections json.RawMessage `json:"optionalReservationSelections"`
	OptionalAncillarySelections   json.RawMessage `json:"optionalAncillarySelections"`
}

// present reports whether a raw member holds something (not absent, null,
// [] or {}).
func present(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "null" && s != "[]" && s != "{}"
}

// readBookingRequest reads POST /bookings and checks what needs no store:
// one offer, its id and passengerRefs, the passengers' specifications.
func readBookingRequest(body []byte) (*osdm.BookingRequest, *osdm.ProblemError) {
	var b bookingBody
	if p := decodeBody(body, &b); p != nil {
		return nil, p
	}
	switch {
	case len(b.Offers) == 0:
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/offers", "offers must name the offer to book")
	case len(b.Offers) > 1:
		return nil, restricted(RestrictOneOffer, osdm.CodeOutOfBounds, "#/offers/1",
			"a booking books exactly one offer; book each offer in a booking of its own")
	case len(b.PassengerSpecifications) == 0:
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/passengerSpecifications", "passengerSpecifications must describe the offer's passengers")
	case len(b.PassengerSpecifications) > maxPassengers:
		return nil, restricted(RestrictPassengers, osdm.CodeOutOfBounds, "#/passengerSpecifications",
			"at most "+strconv.Itoa(maxPassengers)+" passengers")
	case present(b.PromotionCodes):
		return nil, restricted(RestrictReservations, osdm.CodeOutOfBounds, "#/promotionCodes",
			"promotion codes are not offered: the legacy system prices by tariff")
	case len(b.ExternalRef) > maxRefBytes:
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/externalRef", "externalRef is longer than "+strconv.Itoa(maxRefBytes)+" bytes")
	}
	o := b.Offers[0]
	switch {
	case o.OfferID == "":
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/offers/0/offerId", "offerId is required")
	case len(o.PassengerRefs) == 0:
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/offers/0/passengerRefs", "passengerRefs must name the offer's passengers")
	case present(o.PlaceSelections):
		return nil, restricted(RestrictOneOffer, osdm.CodeOutOfBounds, "#/offers/0/placeSelections",
			"places cannot be selected: the legacy system allocates them")
	case present(o.OptionalReservationSelections), present(o.OptionalAncillarySelections):
		return nil, restricted(RestrictReservations, osdm.CodeOutOfBounds, "#/offers/0",
			"an offer is one reservation: there are no optional reservations or ancillaries to select")
	}
	req := &osdm.BookingRequest{
		Offers:                  []osdm.OfferSelection{{OfferID: o.OfferID, PassengerRefs: o.PassengerRefs}},
		PassengerSpecifications: b.PassengerSpecifications,
		ExternalRef:             b.ExternalRef,
	}
	seen := map[string]bool{}
	for i, ps := range req.PassengerSpecifications {
		at := "#/passengerSpecifications/" + strconv.Itoa(i)
		switch {
		case ps.ExternalRef == "" || len(ps.ExternalRef) > maxRefBytes:
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, at+"/externalRef", "externalRef is required (at most "+strconv.Itoa(maxRefBytes)+" bytes)")
		case seen[ps.ExternalRef]:
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, at+"/externalRef", "externalRef "+strconv.Quote(shorten(ps.ExternalRef, 40))+" is given twice")
		case ps.Type == "":
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, at+"/type", "type is required")
		}
		seen[ps.ExternalRef] = true
		if p := checkPersonData(at, ps.DateOfBirth, ps.Age, ps.Detail); p != nil {
			return nil, p
		}
	}
	return req, nil
}

// checkPersonData checks a passenger's date of birth, age and detail.
func checkPersonData(at, dob string, age *int, d *osdm.PersonDetail) *osdm.ProblemError {
	if dob != "" {
		if _, err := time.Parse(time.DateOnly, dob); err != nil || len(dob) != 10 {
			return osdm.Invalid(osdm.CodeInvalidRequest, at+"/dateOfBirth", "dateOfBirth must be a date YYYY-MM-DD")
		}
	}
	if age != nil && (*age < 0 || *age > 150) {
		return osdm.Invalid(osdm.CodeInvalidRequest, at+"/age", "age must be 0..150")
	}
	if d == nil {
		return nil
	}
	if why := legacy.NameFault(d.FirstName); d.FirstName != "" && why != "" {
		return osdm.Invalid(osdm.CodeInvalidRequest, at+"/detail/firstName", "firstName "+why)
	}
	if why := legacy.NameFault(d.LastName); d.LastName != "" && why != "" {
		return osdm.Invalid(osdm.CodeInvalidRequest, at+"/detail/lastName", "lastName "+why)
	}
	if c := d.Contact; c != nil {
		if len(c.Email) > maxEmailBytes || c.Email != "" && (!legacy.PlainText(c.Email, maxEmailBytes) || !strings.Contains(c.Email, "@")) {
			return osdm.Invalid(osdm.CodeInvalidRequest, at+"/detail/contact/email", "email must be an address of at most 254 bytes")
		}
		if len(c.PhoneNumber) > maxPhoneBytes || c.PhoneNumber != "" && !validPhone(c.PhoneNumber) {
			return osdm.Invalid(osdm.CodeInvalidRequest, at+"/detail/contact/phoneNumber", "phoneNumber must be an E.164 number such as +41791234567")
		}
	}
	return nil
}

// validPhone accepts E.164: a plus and 4..15 digits.
func validPhone(s string) bool {
	if len(s) < 5 || len(s) > 16 || s[0] != '+' {
		return false
	}
	return allDigits(s[1:])
}

// bookingPassengers matches the request's passengers with the offer's:
// the booking is for all the offer's passengers (restriction 6), with the
// types and ages the tariffs were chosen by (restriction 5). It returns
// the booking's passengers and the names the BookingRequest carries
// (legacyNames).
func bookingPassengers(req *osdm.BookingRequest, offer *offerRecord, rules []TariffRule) ([]passengerRecord, []legacy.Passenger, *osdm.ProblemError) {
	inOffer := map[string]int{}
	for i, op := range offer.Passengers {
		inOffer[op.Ref] = i
	}
	refs := map[string]bool{}
	for i, r := range req.Offers[0].PassengerRefs {
		at := "#/offers/0/passengerRefs/" + strconv.Itoa(i)
		if _, ok := inOffer[r]; !ok {
			return nil, nil, restricted(RestrictOneOffer, osdm.CodeOutOfBounds, at,
				"passenger "+strconv.Quote(shorten(r, 40))+" is not a passenger of the offer")
		}
		if refs[r] {
			return nil, nil, osdm.Invalid(osdm.CodeInvalidRequest, at, "passenger "+strconv.Quote(shorten(r, 40))+" is named twice")
		}
		refs[r] = true
	}
	for _, op := range offer.Passengers {
		if !refs[op.Ref] {
			return nil, nil, restricted(RestrictOneOffer, osdm.CodeOutOfBounds, "#/offers/0/passengerRefs",
				"a booking books the offer for all its passengers; "+strconv.Quote(shorten(op.Ref, 40))+" is missing")
		}
	}
	specs := make([]*osdm.PassengerSpecification, len(offer.Passengers))
	for i := range req.PassengerSpecifications {
		ps := &req.PassengerSpecifications[i]
		at := "#/passengerSpecifications/" + strconv.Itoa(i)
		j, ok := inOffer[ps.ExternalRef]
		if !ok {
			return nil, nil, restricted(RestrictOneOffer, osdm.CodeOutOfBounds, at+"/externalRef",
				"passenger "+strconv.Quote(shorten(ps.ExternalRef, 40))+" is not a passenger of the offer")
		}
		op := offer.Passengers[j]
		if ps.Type != op.Type {
			return nil, nil, restricted(RestrictPassengers, osdm.CodeOutOfBounds, at+"/type",
				"the offer's tariff is for a passenger of type "+string(op.Type)+"; search again for another type")
		}
		if ps.Age != nil && op.Age != nil && *ps.Age != *op.Age {
			return nil, nil, restricted(RestrictPassengers, osdm.CodeOutOfBounds, at+"/age",
				"the offer's tariff is for age "+strconv.Itoa(*op.Age)+"; search again for another age")
		}
		if p := birthDateFits(at, ps.DateOfBirth, op, offer.ServiceDate, rules); p != nil {
			return nil, nil, p
		}
		specs[j] = ps
	}
	pax := make([]passengerRecord, len(offer.Passengers))
	for i, op := range offer.Passengers {
		ps := specs[i]
		if ps == nil {
			return nil, nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/passengerSpecifications",
				"passenger "+strconv.Quote(shorten(op.Ref, 40))+" of the offer has no specification")
		}
		p := passengerRecord{
			ID: "p" + strconv.Itoa(i+1), ExternalRef: op.Ref, Type: op.Type, Age: op.Age,
			DateOfBirth: ps.DateOfBirth, Detail: ps.Detail,
		}
		if p.DateOfBirth == "" {
			p.DateOfBirth = op.DateOfBirth
		}
		pax[i] = p
	}
	return pax, markNamesSent(offer, pax), nil
}
