package osdmlegacy

import "github.com/caddy-osdm/caddy-osdm/legacy"

// legacyNames returns the Passengers of the legacy BookingRequest that
// books offer for pax (the booking's passengers, in the offer's order),
// and the indexes in pax of the passengers it names. A legacy
// BookingRequest names its places in order, the first Passenger on the
// first place: so the names follow the places (the offer's placeOrder),
// and stop at the first place whose passenger has no last name, since a
// legacy Passenger cannot be left blank. The names and dates of birth
// after that follow the fulfilment or the exchange (unsentData).
func legacyNames(offer *offerRecord, pax []passengerRecord) ([]legacy.Passenger, []int) {
	var names []legacy.Passenger
	var named []int
	for _, i := range offer.placeOrder() {
		if i >= len(pax) || nameOf(pax[i].Detail) == "" {
			break
		}
		d := pax[i].Detail
		names = append(names, legacy.Passenger{FirstName: d.FirstName, LastName: d.LastName, DateOfBirth: pax[i].DateOfBirth})
		named = append(named, i)
	}
	return names, named
}

// markNamesSent sets each passenger's NameSent to the name the legacy
// BookingRequest of legacyNames carries for it ("" when it carries none)
// and returns that request's Passengers.
func markNamesSent(offer *offerRecord, pax []passengerRecord) []legacy.Passenger {
	names, named := legacyNames(offer, pax)
	for i := range pax {
		pax[i].NameSent = ""
	}
	for _, i := range named {
		pax[i].NameSent = nameOf(pax[i].Detail)
	}
	return names
}

// inOfferOrder returns pax in the order of offer's passengers (matched by
// externalRef), nil when they do not match one to one.
func inOfferOrder(offer *offerRecord, pax []passengerRecord) []passengerRecord {
	out := make([]passengerRecord, 0, len(pax))
	for _, op := range offer.Passengers {
		for _, pr := range pax {
			if pr.ExternalRef == op.Ref {
				out = append(out, pr)
			}
		}
	}
	if len(out) != len(pax) {
		return nil
	}
	return out
}
