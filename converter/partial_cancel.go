package converter

import (
	"context"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// heldPlace is a place a booking still holds, with the passenger it was
// booked for and the booking part it belongs to.
type heldPlace struct {
	place       legacy.Place
	passengerID string
	partID      string
}

// heldPlaces lists the places of the live reservations of b, as a
// BookingReply names them (coach and number), each with its passenger:
// the reservedPlaces' passengerIds, position by position with their
// placeNumbers. A place whose passenger the partner does not name has
// passengerID "".
func heldPlaces(b *osdm.Booking) []heldPlace { return bookedPlaces(b, true) }

// bookedPlaces lists the places of b's reservations as heldPlaces does;
// with live, only of those that still hold their places.
func bookedPlaces(b *osdm.Booking, live bool) []heldPlace {
	var out []heldPlace
	for i := range b.BookedOffers {
		for j := range b.BookedOffers[i].Reservations {
			res := &b.BookedOffers[i].Reservations[j]
			if res.PlaceAllocation == nil || live && partClosed(res.Status) {
				continue
			}
			for _, rp := range res.PlaceAllocation.ReservedPlaces {
				for k, n := range rp.PlaceNumbers {
					out = append(out, heldPlace{place: legacy.Place{Coach: plain(rp.CoachNumber, 50), Number: plain(n, 50)},
						passengerID: placeOwner(res, &rp, k), partID: res.ID})
				}
			}
		}
	}
	return out
}

// placeOwner is the passenger id of the k-th place number of rp, a
// reservedPlace of res: rp's passengerIds position by position with its
// placeNumbers, or the reservation's one passenger; "" when the partner
// does not say.
func placeOwner(res *osdm.Reservation, rp *osdm.ReservedPlace, k int) string {
	switch {
	case len(rp.PassengerIDs) == len(rp.PlaceNumbers):
		return rp.PassengerIDs[k]
	case len(res.PassengerIDs) == 1:
		return res.PassengerIDs[0]
	}
	return ""
}

// partClosed reports a booking part that holds nothing any more.
func partClosed(s osdm.BookingPartStatus) bool {
	switch s {
	case osdm.BookingPartCancelled, osdm.BookingPartReleased, osdm.BookingPartRefunded, osdm.BookingPartExchanged:
		return true
	}
	return false
}

// partialCancel cancels the places of booking b (whose live fulfilments
// are live): a refund offer with refundSpecifications naming the
// passengers of those places, confirmed. Every place must be one b still
// holds; naming all of them is a whole cancellation.
func (r *run) partialCancel(ctx context.Context, b *osdm.Booking, live []string, places []legacy.Place, overrule osdm.OverruleCode) *Result {
	id := b.ID
	held := heldPlaces(b)
	if len(live) == 0 {
		if bookingState(b) == bookingClosed {
			return r.negative(&legacy.NegativeReply{Code: legacy.CodeAlreadyCancelled, BookingRef: id,
				Text: "Booking " + id + " at partner " + r.c.partner + " is already cancelled or refunded; nothing was changed."})
		}
		return r.invalidAbout(id, "Booking "+id+" at partner "+r.c.partner+" is not confirmed, so single places cannot be refunded; cancel the whole booking (a CancelRequest without Place).")
	}
	var pax []string
	partsOf := map[string]bool{}
	named := map[int]int{} // held place -> the item of places naming it
	for k, want := range places {
		found, matches := -1, 0
		for i, h := range held {
			if h.place.Number == want.Number && (want.Coach == "" || h.place.Coach == want.Coach) {
				if found < 0 {
					found = i
				}
				matches++
			}
		}
		if found < 0 {
			return r.invalidAbout(id, "Place "+describePlace(want)+" is not held by booking "+id+" (any more); it holds "+describeHeld(held)+". Nothing was cancelled.")
		}
		if matches > 1 {
			return r.invalidAbout(id, "Place "+describePlace(want)+" names more than one place of booking "+id+" ("+describeHeld(held)+"); give its coach. Nothing was cancelled.")
		}
		if j, twice := named[found]; twice {
			return r.invalidAbout(id, "Places "+strconv.Itoa(j+1)+" and "+strconv.Itoa(k+1)+" of the request both name place "+describePlace(held[found].place)+" of booking "+id+". Nothing was cancelled.")
		}
		named[found] = k
		h := held[found]
		if h.passengerID == "" {
			return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, BookingRef: id,
				Text: "Partner " + r.c.partner + " does not say which passenger holds place " + describePlace(want) + " of booking " + id + ", so it cannot be cancelled alone; nothing was cancelled. Cancel the whole booking instead."})
		}
		pax = append(pax, h.passengerID)
		partsOf[h.partID] = true
	}
	if len(places) == len(held) {
		// Every place: a whole cancellation.
		all := make([]legacy.Place, len(held))
		for i, h := range held {
			all[i] = h.place
		}
		return r.refund(ctx, id, &osdm.RefundOfferRequest{FulfillmentIDs: live, OverruleCode: overrule}, legacy.StatusRefunded, all)
	}
	// The passengers are taken from the fulfilment that covers their
	// part; a booking with one live fulfilment needs no looking.
	specs := make([]osdm.RefundSpecification, 0, len(live))
	for _, fid := range live {
		var in []string
		for k, pid := range pax {
			if len(live) == 1 || fulfilmentCovers(b, fid, held, places[k]) {
				in = append(in, pid)
			}
		}
		if len(in) > 0 {
			specs = append(specs, osdm.RefundSpecification{FulfillmentID: fid, PassengerIDs: in})
		}
	}
	fids := make([]string, len(specs))
	for i, s := range specs {
		fids[i] = s.FulfillmentID
	}
	if len(specs) == 0 {
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, BookingRef: id,
			Text: "Partner " + r.c.partner + " does not say which ticket of booking " + id + " covers the places asked, so they cannot be cancelled alone; nothing was cancelled."})
	}
	req := &osdm.RefundOfferRequest{FulfillmentIDs: fids, RefundSpecifications: specs, OverruleCode: overrule}
	return r.refund(ctx, id, req, legacy.StatusPartiallyRefunded, places)
}

// fulfilmentCovers reports whether fulfilment fid of b covers the booking
// part of place p.
func fulfilmentCovers(b *osdm.Booking, fid string, held []heldPlace, p legacy.Place) bool {
	part := ""
	for _, h := range held {
		if h.place.Number == p.Number && (p.Coach == "" || h.place.Coach == p.Coach) {
			part = h.partID
		}
	}
	for _, fu := range b.Fulfillments {
		if fu.ID != fid {
			continue
		}
		for _, bp := range fu.BookingParts {
			if bp.ID == part {
				return true
			}
		}
	}
	return false
}

// describePlace is "coach 11 number 46" for a reply text.
func describePlace(p legacy.Place) string {
	if p.Coach == "" {
		return "number " + plain(p.Number, 50)
	}
	return "coach " + plain(p.Coach, 50) + " number " + plain(p.Number, 50)
}

// describeHeld lists held places as "11/45, 11/47" (at most 20).
func describeHeld(held []heldPlace) string {
	if len(held) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(held))
	for i, h := range held {
		if i == 20 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, h.place.Coach+"/"+h.place.Number)
	}
	return strings.Join(parts, ", ")
}
