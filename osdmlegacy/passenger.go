package osdmlegacy

import (
	"context"
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// PATCH /bookings/{id}/passengers/{pid} before fulfilment: names, date of
// birth and contact are kept with the booking (the legacy BookingRequest
// carried the names it had then; 918-1 has no message to change them).
// Type and age cannot change: the tariff was booked by them; a date of
// birth must keep the passenger in the booked tariff's age range.

// passengerBody is PATCH .../passengers/{pid} as read (the spec's
// Passenger; members absent are left as they were).
type passengerBody struct {
	ID          string             `json:"id"`
	ExternalRef string             `json:"externalRef"`
	Type        osdm.PassengerType `json:"type"`
	Age         *int               `json:"age"`
	DateOfBirth string             `json:"dateOfBirth"`
	Detail      *osdm.PersonDetail `json:"detail"`
}

// readPassengerPatch reads PATCH .../passengers/{pid}.
func readPassengerPatch(body []byte) (*passengerBody, *osdm.ProblemError) {
	var b passengerBody
	if p := decodeBody(body, &b); p != nil {
		return nil, p
	}
	if len(b.ID) > maxRefBytes || len(b.ExternalRef) > maxRefBytes || len(b.Type) > 64 {
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "", "id, externalRef and type are at most 256 bytes")
	}
	if p := checkPersonData("#", b.DateOfBirth, b.Age, b.Detail); p != nil {
		return nil, p
	}
	return &b, nil
}

// patchPassenger changes what the booking keeps of a passenger.
func (f *Facade) patchPassenger(ctx context.Context, c *call) *Answer {
	body, p := readPassengerPatch(c.body)
	if p != nil {
		return f.problem(c, p)
	}
	pid := c.params[osdm.ParamPassengerID]
	return f.idempotent(ctx, c, func() string { return pid }, func(string) (*Answer, bool) {
		if _, a := f.bookingOf(ctx, c); a != nil {
			return a, finalAnswer(a)
		}
		rec, err := f.updateBooking(ctx, c.params[osdm.ParamBookingID], func(r *BookingRecord) error {
			pr := r.passenger(pid)
			if pr == nil {
				return &errRefused{passengerNotFound(r.ID, pid)}
			}
			if r.State != StatePrebooked {
				return &errRefused{stateProblem(r, "changed")}
			}
			switch {
			case body.ID != "" && body.ID != pid:
				return &errRefused{osdm.Invalid(osdm.CodeInvalidRequest, "#/id", "id must be the passenger's id "+quoteShort(pid))}
			case body.ExternalRef != "" && body.ExternalRef != pr.ExternalRef:
				return &errRefused{osdm.Invalid(osdm.CodeInvalidRequest, "#/externalRef", "externalRef cannot change")}
			case body.Type != "" && body.Type != pr.Type:
				return &errRefused{Restricted(RestrictPassengers, osdm.CodeOutOfBounds, "#/type",
					"the passenger type cannot change: the tariff was booked for "+string(pr.Type))}
			case body.Age != nil && pr.Age != nil && *body.Age != *pr.Age:
				return &errRefused{Restricted(RestrictPassengers, osdm.CodeOutOfBounds, "#/age",
					"the age cannot change: the tariff was booked for it")}
			}
			if body.DateOfBirth != "" {
				// Held to the booked tariff's age range as at booking.
				if op := r.Offer.passenger(pr.ExternalRef); op != nil {
					if p := birthDateFits("#", body.DateOfBirth, *op, r.Offer.ServiceDate, f.cfg.Tariffs); p != nil {
						return &errRefused{p}
					}
				}
				pr.DateOfBirth = body.DateOfBirth
			}
			if body.Detail != nil {
				d := *body.Detail
				pr.Detail = &d
			}
			return nil
		})
		if p := refusedBy(err); p != nil {
			return f.problem(c, p), finalProblem(p)
		}
		if err != nil {
			return f.storeFailed(c, err), false
		}
		v := passengerView(rec.passenger(pid))
		return f.json(c, http.StatusOK, osdm.PassengerResponse{Passenger: &v}), true
	})
}

// getPassenger answers GET .../passengers/{pid} from the store.
func (f *Facade) getPassenger(ctx context.Context, c *call) *Answer {
	rec, a := f.bookingOf(ctx, c)
	if a != nil {
		return a
	}
	pid := c.params[osdm.ParamPassengerID]
	pr := rec.passenger(pid)
	if pr == nil {
		return f.problem(c, passengerNotFound(rec.ID, pid))
	}
	v := passengerView(pr)
	return f.json(c, http.StatusOK, osdm.PassengerResponse{Passenger: &v})
}

func passengerNotFound(bookingID, pid string) *osdm.ProblemError {
	return osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "booking "+bookingID+" has no passenger "+quoteShort(pid))
}

// passenger returns the booking's passenger id, nil when none.
func (rec *BookingRecord) passenger(id string) *PassengerRecord {
	for i := range rec.Passengers {
		if rec.Passengers[i].ID == id {
			return &rec.Passengers[i]
		}
	}
	return nil
}

// passengerView is the OSDM passenger of a record.
func passengerView(p *PassengerRecord) osdm.Passenger {
	v := osdm.Passenger{ID: p.ID, ExternalRef: p.ExternalRef, Type: p.Type, Age: p.Age, DateOfBirth: p.DateOfBirth}
	if p.Detail != nil {
		d := *p.Detail
		v.Detail = &d
	}
	return v
}
