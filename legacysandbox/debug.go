package legacysandbox

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// BookingInfo is one booking as GET .../_sandbox/bookings lists it: the
// system's state, for tests and for people trying the sandbox. It is not a
// legacy message.
type BookingInfo struct {
	// BookingRef is the reference a CancelRequest gives back.
	BookingRef string `json:"bookingRef"`
	// ReservationReference is the 6-character reference shown to travellers.
	ReservationReference string `json:"reservationReference"`
	// TicketControlNumber is the ticket's control number.
	TicketControlNumber string `json:"ticketControlNumber"`
	// Status is CONFIRMED while any place is held, CANCELLED once none is.
	Status string `json:"status"`
	// Train is the train number.
	Train string `json:"train"`
	// ServiceDate is the train run's service day, YYYY-MM-DD.
	ServiceDate string `json:"serviceDate"`
	// From and To are the stations' UIC codes.
	From string `json:"from"`
	To   string `json:"to"`
	// Departure and Arrival are the times at From and To.
	Departure time.Time `json:"departure"`
	Arrival   time.Time `json:"arrival"`
	// TravelClass is 1 or 2; ServiceCode 1 (seat), 2 (couchette) or 3 (berth).
	TravelClass int `json:"travelClass"`
	ServiceCode int `json:"serviceCode"`
	// Tariffs are the places booked per tariff code.
	Tariffs []TariffCount `json:"tariffs"`
	// Places are the coach and place numbers held (or held until cancelled).
	Places []PlaceInfo `json:"places"`
	// Passengers is the number of passengers named.
	Passengers int `json:"passengers"`
	// Names are the passengers' personal data by place (the BookingRequest's
	// and PassengerDataRequests'); an unnamed place has an empty entry.
	Names []PassengerInfo `json:"names"`
	// Price, and once cancelled Refund and Fee, are decimal amounts in Currency.
	Price    string `json:"price"`
	Refund   string `json:"refund,omitempty"`
	Fee      string `json:"fee,omitempty"`
	Currency string `json:"currency"`
	// ReasonCode is the cancellation's reason code, if it had one.
	ReasonCode *int `json:"reasonCode,omitempty"`
	// CreatedAt is when it was booked; CancelledAt when it was cancelled.
	CreatedAt   time.Time  `json:"createdAt"`
	CancelledAt *time.Time `json:"cancelledAt,omitempty"`
	// MessageIDs are the messageIds of the messages that acted on it.
	MessageIDs []string `json:"messageIds"`
}

// TariffCount is a number of places at one tariff code.
type TariffCount struct {
	Code  int `json:"code"`
	Count int `json:"count"`
}

// PlaceInfo is one place: coach and number, and whether it was cancelled
// (a partial cancellation frees some places of a booking).
type PlaceInfo struct {
	Coach     string `json:"coach"`
	Number    string `json:"number"`
	Cancelled bool   `json:"cancelled,omitempty"`
}

// PassengerInfo is one passenger's personal data, "" where not given.
type PassengerInfo struct {
	FirstName   string `json:"firstName,omitempty"`
	LastName    string `json:"lastName,omitempty"`
	DateOfBirth string `json:"dateOfBirth,omitempty"`
}

// Bookings lists every booking held, oldest first.
func (s *Sandbox) Bookings() []BookingInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(s.cfg.Now())
	out := make([]BookingInfo, 0, s.bookings.len())
	for _, b := range s.bookings.order {
		info := BookingInfo{
			BookingRef:           b.ref,
			ReservationReference: b.reservation,
			TicketControlNumber:  b.tcn,
			Status:               legacy.StatusConfirmed,
			Train:                b.run.train,
			ServiceDate:          b.run.serviceDate,
			From:                 b.from,
			To:                   b.to,
			Departure:            b.departure,
			Arrival:              b.arrival,
			TravelClass:          b.run.class,
			ServiceCode:          b.run.service,
			Passengers:           b.passengers,
			Price:                formatAmount(b.price, s.decimals()),
			Currency:             s.cfg.Currency,
			CreatedAt:            b.createdAt,
			MessageIDs:           slices.Clone(b.messageIDs),
		}
		for _, t := range b.tariffs {
			info.Tariffs = append(info.Tariffs, TariffCount{Code: t.Code, Count: t.Count})
		}
		for i, p := range b.places {
			info.Places = append(info.Places, PlaceInfo{Coach: p.Coach, Number: p.Number, Cancelled: b.freed[i]})
		}
		info.Names = make([]PassengerInfo, len(b.names))
		named := 0
		for i, n := range b.names {
			info.Names[i] = PassengerInfo{FirstName: n.FirstName, LastName: n.LastName, DateOfBirth: n.DateOfBirth}
			if n.LastName != "" {
				named++
			}
		}
		info.Passengers = max(info.Passengers, named)
		if b.refund != 0 || b.fee != 0 {
			info.Refund, info.Fee = formatAmount(b.refund, s.decimals()), formatAmount(b.fee, s.decimals())
		}
		if b.cancelled() {
			at := b.cancelledAt
			info.Status = legacy.StatusCancelled
			info.CancelledAt = &at
			info.Refund, info.Fee = formatAmount(b.refund, s.decimals()), formatAmount(b.fee, s.decimals())
			if b.reasonCode != nil {
				rc := *b.reasonCode
				info.ReasonCode = &rc
			}
		}
		out = append(out, info)
	}
	return out
}

// Available returns the places left of a travel class and service code in
// a train run (train and service day): for tests and the debug listing.
func (s *Sandbox) Available(train, serviceDate string, class, service int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inventory.free(runKey{train: train, serviceDate: serviceDate, class: class, service: service})
}

// bookingsJSON is the debug listing's body.
func (s *Sandbox) bookingsJSON() []byte {
	body, _ := json.Marshal(s.Bookings())
	return append(body, '\n')
}
