package legacysandbox

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

func intp(v int) *int { return &v }

// The demo timetable: every number runs, times from the number within the
// documented ranges, night trains (4...) with couchettes and berths; all
// zeros never run.
func TestDemoSchedule(t *testing.T) {
	d := Demo()
	for _, tc := range []struct {
		train          string
		night          bool
		minDep, maxDep string // HH:MM
		minDur, maxDur time.Duration
	}{
		{"708", false, "06:00", "20:00", 45 * time.Minute, 6 * time.Hour},
		{"9203", false, "06:00", "20:00", 45 * time.Minute, 6 * time.Hour},
		{"ICE5", false, "06:00", "20:00", 45 * time.Minute, 6 * time.Hour},
		{"402", true, "19:00", "22:45", 8 * time.Hour, 12 * time.Hour},
		{"4", true, "19:00", "22:45", 8 * time.Hour, 12 * time.Hour},
	} {
		leg, err := d.Leg(tc.train, tomorrow(), "8500010", "8503000")
		if err != nil {
			t.Fatalf("%s: %v", tc.train, err)
		}
		again, _ := d.Leg(tc.train, tomorrow(), "8000105", "8503000")
		if !again.Departure.Equal(leg.Departure) || !again.Arrival.Equal(leg.Arrival) {
			t.Errorf("%s: times depend on the stations: %v %v", tc.train, leg, again)
		}
		dep := leg.Departure.Format("15:04")
		if dep < tc.minDep || dep > tc.maxDep || leg.Departure.Format(time.DateOnly) != tomorrow() {
			t.Errorf("%s departs %s", tc.train, leg.Departure)
		}
		if dur := leg.Arrival.Sub(leg.Departure); dur < tc.minDur || dur > tc.maxDur {
			t.Errorf("%s takes %s", tc.train, dur)
		}
		if got := len(leg.Services); (got == 3) != tc.night {
			t.Errorf("%s services %v", tc.train, leg.Services)
		}
		if leg.ServiceDate != tomorrow() {
			t.Errorf("%s service date %s", tc.train, leg.ServiceDate)
		}
	}
	for _, train := range []string{"0", "000", "00000"} {
		if _, err := d.Leg(train, tomorrow(), "8500010", "8503000"); err == nil || !strings.Contains(err.Error(), "does not run") {
			t.Errorf("%s: %v", train, err)
		}
	}
	a, _ := d.Leg("708", tomorrow(), "8500010", "8503000")
	b, _ := d.Leg("709", tomorrow(), "8500010", "8503000")
	c, _ := d.Leg("708", start.AddDate(0, 0, 2).Format(time.DateOnly), "8500010", "8503000")
	if a.Departure.Format("15:04") == b.Departure.Format("15:04") && a.Arrival.Sub(a.Departure) == b.Arrival.Sub(b.Departure) {
		t.Errorf("trains 708 and 709 have the same times")
	}
	if c.Departure.Sub(a.Departure) != 24*time.Hour {
		t.Errorf("708 the next day leaves %v after", c.Departure.Sub(a.Departure))
	}
}

// An AvailabilityRequest gets one offer with the demo's times, the
// tariff table's price, the places left and a validity.
func TestAvailabilityOffer(t *testing.T) {
	s, _ := newSandbox(t, Config{Capacity: 40})
	p := seats(legacy.Tariff{Code: 1, Count: 2}, legacy.Tariff{Code: 2, Count: 1})
	p.ServiceLevel = "AV"
	r := as[*legacy.AvailabilityReply](t, handle(s, availability("A1", "708", p)))
	leg, _ := Demo().Leg("708", tomorrow(), "8500010", "8503000")
	if r.Journey.DepartureTime != leg.Departure.Format("15:04") || r.Journey.ArrivalTime != leg.Arrival.Format("15:04") ||
		r.Journey.TrainNumber != "708" || r.Journey.From != "8500010" || r.Header.CorrelationID != "A1" {
		t.Errorf("journey %+v header %+v", r.Journey, r.Header)
	}
	if len(r.Offers) != 1 {
		t.Fatalf("offers %+v", r.Offers)
	}
	o := r.Offers[0]
	// 2 adults at 12.00 and a child at 50%.
	if o.Price.Amount != "30.00" || o.Price.Currency != "EUR" || *o.AvailablePlaces != 40 ||
		o.TravelClass != 2 || o.ServiceCode != 1 || o.ServiceLevel != "AV" || o.OfferRef == "" {
		t.Errorf("offer %+v price %+v places %d", o, o.Price, *o.AvailablePlaces)
	}
	if !o.ValidUntil.Equal(start.Add(DefaultOfferTTL)) {
		t.Errorf("valid until %v", o.ValidUntil)
	}
}

// Prices: the fare of the class and service code times each tariff's
// percentage, configurable.
func TestPrices(t *testing.T) {
	s, _ := newSandbox(t, Config{
		Tariffs:  map[int]int{1: 100, 7: 35},
		Fares:    []Fare{{TravelClass: 1, ServiceCode: 3, Cents: 10001}},
		Currency: "CHF",
	})
	for _, tc := range []struct {
		train string
		p     legacy.PlaceRequest
		want  string
	}{
		{"708", seats(legacy.Tariff{Code: 1, Count: 1}), "12.00"},
		{"708", seats(legacy.Tariff{Code: 7, Count: 3}), "12.60"}, // 4.20 each
		{"708", legacy.PlaceRequest{TravelClass: 1, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 2}}}, "38.00"},
		{"402", legacy.PlaceRequest{TravelClass: 2, ServiceCode: 2, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}}, "29.00"},
		{"402", legacy.PlaceRequest{TravelClass: 1, ServiceCode: 3, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 7, Count: 1}}}, "135.01"},
	} {
		r := as[*legacy.AvailabilityReply](t, handle(s, availability("P-"+tc.want, tc.train, tc.p)))
		if len(r.Offers) != 1 || r.Offers[0].Price.Amount != tc.want || r.Offers[0].Price.Currency != "CHF" {
			t.Errorf("%s %+v: %+v", tc.train, tc.p, r.Offers)
		}
	}
	nr := negative(t, handle(s, availability("P-2", "708", seats(legacy.Tariff{Code: 2, Count: 1}))), legacy.CodeInvalidMessage)
	if !strings.Contains(nr.Text, "tariff code 2") || !strings.Contains(nr.Text, "1, 7") {
		t.Errorf("text %q", nr.Text)
	}
}

// Every NegativeReply the sandbox gives to a decoded message, and the
// ReplacementProposal.
func TestRefusals(t *testing.T) {
	s, _ := newSandbox(t, Config{Capacity: 3, Foreign: []Foreign{{Train: "462", System: 80, Operator: "1080"}}})
	yesterday := journey("708")
	yesterday.DepartureDate = start.AddDate(0, 0, -1).Format(time.DateOnly)
	today := journey("708")
	today.DepartureDate = start.Format(time.DateOnly)
	todayLeg, _ := Demo().Leg("708", today.DepartureDate, today.From, today.To)
	exchange := bookReq("R6", "708", adults(1))
	exchange.ExchangeOf = "9999-0000-1"
	couchette := bookReq("R7", "708", legacy.PlaceRequest{TravelClass: 2, ServiceCode: 2, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}})
	for _, tc := range []struct {
		name string
		req  legacy.Request
		code legacy.Code
		text string
	}{
		{"unknown tariff", bookReq("R1", "708", seats(legacy.Tariff{Code: 9, Count: 1})), legacy.CodeInvalidMessage, "tariff code 9"},
		{"train that never runs", availability("R2", "000", adults(1)), legacy.CodeTrainNotFound, "does not run"},
		{"departed yesterday", &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "R3"}, Journey: yesterday, Places: adults(1)}, legacy.CodeNoAvailability, "has left"},
		{"too many places", bookReq("R5", "708", adults(4)), legacy.CodeNoAvailability, "3 2nd class seats left, 4 asked"},
		{"exchange", exchange, legacy.CodeExchangeNotSupported, "not supported"},
		{"no couchettes on a day train", couchette, legacy.CodeNoAvailability, "has no couchettes"},
		{"unknown booking", cancelOf("R8", "9999-dead-1", nil), legacy.CodeBookingNotFound, "holds no booking"},
		{"passenger data of an unknown booking", &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "R10"}, BookingRef: "9999-dead-2",
			Passengers: []legacy.PassengerData{{Index: 1, LastName: "Muster"}}}, legacy.CodeBookingNotFound, `reservation system 9999 holds no booking "9999-dead-2"`},
		{"forged offer", func() legacy.Request {
			b := bookReq("R9", "708", adults(1))
			b.OfferRef = "OF-708-20300311-21-zzzzzz-0123456789abcdef"
			return b
		}(), legacy.CodeInvalidMessage, "not given by this system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nr := negative(t, handle(s, tc.req), tc.code)
			if !strings.Contains(nr.Text, tc.text) || nr.Header.CorrelationID != tc.req.MessageID() || nr.Retryable {
				t.Errorf("%+v, want text with %q", nr, tc.text)
			}
			if got := Status(nr); got != tc.code.HTTPStatus() {
				t.Errorf("status %d", got)
			}
		})
	}
	// Today's train: refused once it has left, sold before.
	req := &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "R4"}, Journey: today, Places: adults(1)}
	if todayLeg.Departure.After(start) {
		as[*legacy.AvailabilityReply](t, handle(s, req))
	} else {
		negative(t, handle(s, req), legacy.CodeNoAvailability)
	}

	// A foreign train, by any message but CancelRequest.
	for _, req := range []legacy.Request{availability("F1", "462", adults(1)), bookReq("F2", "462", adults(1))} {
		rp := as[*legacy.ReplacementProposal](t, handle(s, req))
		want := legacy.Alternative{ReservationSystem: 80, Operator: "1080", TrainNumber: "462", Priority: 1}
		if len(rp.Alternatives) != 1 || rp.Alternatives[0] != want || rp.Header.CorrelationID != req.MessageID() {
			t.Errorf("proposal %+v", rp)
		}
	}
	if n := len(s.Bookings()); n != 0 {
		t.Errorf("%d bookings after refusals", n)
	}
}

// A train's departure: sold until it leaves, refused from then on.
func TestDepartedTrain(t *testing.T) {
	s, clock := newSandbox(t, Config{})
	leg, _ := Demo().Leg("708", tomorrow(), "8500010", "8503000")
	clock.Advance(leg.Departure.Sub(start) - time.Second)
	r := as[*legacy.AvailabilityReply](t, handle(s, availability("D1", "708", adults(1))))
	if len(r.Offers) != 1 || !r.Offers[0].ValidUntil.Equal(leg.Departure) {
		t.Errorf("a second before departure: %+v", r.Offers)
	}
	clock.Advance(time.Second)
	negative(t, handle(s, bookReq("D2", "708", adults(1))), legacy.CodeNoAvailability)
}

// Booking takes places with distinct coach and place numbers, the
// availability shrinks, and a sold-out train answers NO_AVAILABILITY;
// cancelling frees the places, refunds less the fee, and only once.
func TestBookAndCancel(t *testing.T) {
	s, clock := newSandbox(t, Config{Capacity: 5})
	b := as[*legacy.BookingReply](t, handle(s, bookReq("B1", "708", seats(legacy.Tariff{Code: 1, Count: 2}, legacy.Tariff{Code: 2, Count: 1}))))
	if b.Status != legacy.StatusConfirmed || b.Price.Amount != "30.00" || len(b.Places) != 3 ||
		len(b.ReservationReference) != 6 || len(b.TicketControlNumber) != 12 || !strings.HasPrefix(b.BookingRef, "9999-") {
		t.Fatalf("booking %+v", b)
	}
	if !luhnValid(b.TicketControlNumber) {
		t.Errorf("ticket control number %s fails its check digit", b.TicketControlNumber)
	}
	seen := map[legacy.Place]bool{}
	for _, p := range b.Places {
		if seen[p] {
			t.Errorf("place %+v twice", p)
		}
		seen[p] = true
	}
	r := as[*legacy.AvailabilityReply](t, handle(s, availability("B2", "708", adults(2))))
	if *r.Offers[0].AvailablePlaces != 2 {
		t.Errorf("available %d, want 2", *r.Offers[0].AvailablePlaces)
	}
	// First class is counted apart.
	first := as[*legacy.AvailabilityReply](t, handle(s, availability("B3", "708", legacy.PlaceRequest{TravelClass: 1, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}})))
	if *first.Offers[0].AvailablePlaces != 5 {
		t.Errorf("first class available %d", *first.Offers[0].AvailablePlaces)
	}
	// Three places are not left: the offer says 2.
	if r := as[*legacy.AvailabilityReply](t, handle(s, availability("B4", "708", adults(3)))); len(r.Offers) != 1 || *r.Offers[0].AvailablePlaces != 2 {
		t.Errorf("asking 3 of 2 left: %+v", r.Offers)
	}
	b2 := as[*legacy.BookingReply](t, handle(s, bookReq("B5", "708", adults(2))))
	for _, p := range b2.Places {
		if seen[p] {
			t.Errorf("place %+v sold twice", p)
		}
	}
	negative(t, handle(s, bookReq("B6", "708", adults(1))), legacy.CodeNoAvailability)
	if r := as[*legacy.AvailabilityReply](t, handle(s, availability("B7", "708", adults(1)))); len(r.Offers) != 1 || *r.Offers[0].AvailablePlaces != 0 {
		t.Errorf("sold out: %+v", r.Offers)
	}
	// A day train has no couchettes: no offer at all.
	if r := as[*legacy.AvailabilityReply](t, handle(s, availability("B8", "708", legacy.PlaceRequest{TravelClass: 2, ServiceCode: 2, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}}))); len(r.Offers) != 0 {
		t.Errorf("couchettes on a day train: %+v", r.Offers)
	}

	clock.Advance(time.Minute)
	c := as[*legacy.CancelReply](t, handle(s, cancelOf("C1", b.BookingRef, nil)))
	if c.Status != legacy.StatusRefunded || c.RefundAmount.Amount != "27.00" || c.Fee.Amount != "3.00" || c.BookingRef != b.BookingRef {
		t.Errorf("cancel %+v %+v %+v", c, c.RefundAmount, c.Fee)
	}
	c2 := as[*legacy.CancelReply](t, handle(s, cancelOf("C2", b2.BookingRef, intp(3))))
	if c2.RefundAmount.Amount != "24.00" || c2.Fee.Amount != "0.00" {
		t.Errorf("cancel with a reason %+v %+v", c2.RefundAmount, c2.Fee)
	}
	nr := negative(t, handle(s, cancelOf("C3", b.BookingRef, nil)), legacy.CodeAlreadyCancelled)
	if nr.BookingRef != b.BookingRef {
		t.Errorf("ALREADY_CANCELLED names %q", nr.BookingRef)
	}
	if got := s.Available("708", tomorrow(), 2, 1); got != 5 {
		t.Errorf("after cancelling everything %d places left", got)
	}
	list := s.Bookings()
	if len(list) != 2 || list[0].Status != "CANCELLED" || list[0].Refund != "27.00" || list[0].Fee != "3.00" ||
		list[1].ReasonCode == nil || *list[1].ReasonCode != 3 || strings.Join(list[0].MessageIDs, ",") != "B1,C1" ||
		list[0].CancelledAt == nil || !list[0].CancelledAt.Equal(start.Add(time.Minute)) || len(list[0].Places) != 3 {
		t.Errorf("listing %+v", list)
	}
}

// A cancel fee of 0% is written -1; any other percentage applies.
func TestCancelFeeConfig(t *testing.T) {
	for _, tc := range []struct {
		pct       int
		fee, back string
	}{{-1, "0.00", "12.00"}, {25, "3.00", "9.00"}, {100, "12.00", "0.00"}} {
		s, _ := newSandbox(t, Config{CancelFeePercent: tc.pct})
		b := as[*legacy.BookingReply](t, handle(s, bookReq("F1", "708", adults(1))))
		c := as[*legacy.CancelReply](t, handle(s, cancelOf("F2", b.BookingRef, nil)))
		if c.Fee.Amount != tc.fee || c.RefundAmount.Amount != tc.back {
			t.Errorf("%d%%: fee %s refund %s", tc.pct, c.Fee.Amount, c.RefundAmount.Amount)
		}
	}
}

// Coach and place numbers: every place of a run, of every class and
// service code, has its own.
func TestPlaceNumbersUnique(t *testing.T) {
	for _, capacity := range []int{1, 40, 61, 100} {
		services := []int{1, 2, 3}
		seen := map[legacy.Place]runKey{}
		for _, sc := range services {
			for _, class := range []int{1, 2} {
				k := runKey{train: "402", serviceDate: tomorrow(), class: class, service: sc}
				for i := 0; i < capacity; i++ {
					p := placeOf(k, services, i, capacity)
					if other, dup := seen[p]; dup {
						t.Fatalf("capacity %d: %+v is both %+v and %+v", capacity, p, other, k)
					}
					seen[p] = k
				}
			}
		}
	}
	if p := placeOf(runKey{class: 2, service: 1}, []int{1}, 61, 100); p.Coach != "4" || p.Number != "12" {
		// 1st class seats take coaches 1-2, 2nd class starts at 3; index 61 is the 2nd of coach 4.
		t.Errorf("place %+v", p)
	}
}

// A booking with the OfferRef of an AvailabilityReply: taken while valid
// and for the same request, OFFER_EXPIRED after, INVALID_MESSAGE when
// altered or for other tariffs.
func TestOfferRef(t *testing.T) {
	s, clock := newSandbox(t, Config{OfferTTL: time.Minute})
	r := as[*legacy.AvailabilityReply](t, handle(s, availability("O1", "708", adults(2))))
	ref := r.Offers[0].OfferRef
	if !strings.HasPrefix(ref, "OF-708-") {
		t.Errorf("OfferRef %s", ref)
	}
	withRef := func(id string, p legacy.PlaceRequest, ref string) *legacy.BookingRequest {
		b := bookReq(id, "708", p)
		b.OfferRef = ref
		return b
	}
	negative(t, handle(s, withRef("O2", adults(1), ref)), legacy.CodeInvalidMessage)
	negative(t, handle(s, withRef("O3", adults(2), strings.Replace(ref, "-21-", "-11-", 1))), legacy.CodeInvalidMessage)
	negative(t, handle(s, withRef("O4", adults(2), ref[:len(ref)-1]+"x")), legacy.CodeInvalidMessage)
	other := withRef("O5", adults(2), ref)
	other.Journey.To = "8507000"
	negative(t, handle(s, other), legacy.CodeInvalidMessage)
	as[*legacy.BookingReply](t, handle(s, withRef("O6", adults(2), ref)))
	clock.Advance(time.Minute)
	nr := negative(t, handle(s, withRef("O7", adults(2), ref)), legacy.CodeOfferExpired)
	if !strings.Contains(nr.Text, "expired at") {
		t.Errorf("text %q", nr.Text)
	}
	// Another sandbox (another key) does not take it.
	s2, _ := newSandbox(t, Config{})
	negative(t, handle(s2, withRef("O8", adults(2), ref)), legacy.CodeInvalidMessage)
}

// A resent messageId gets the same reply and does nothing again, also
// resent in the other form or stamped anew; with another message it is
// INVALID_MESSAGE; another sender's same messageId is another message.
func TestResend(t *testing.T) {
	s, clock := newSandbox(t, Config{Capacity: 10})
	req := bookReq("M1", "708", adults(2))
	req.Header.Sender = 87
	first := as[*legacy.BookingReply](t, handle(s, req))
	clock.Advance(time.Second)
	again := *req
	again.Header.SentAt = start.Add(time.Second)
	again.Header.Namespaced = true
	second := as[*legacy.BookingReply](t, handle(s, &again))
	if second.BookingRef != first.BookingRef || second.TicketControlNumber != first.TicketControlNumber ||
		!second.Header.SentAt.Equal(first.Header.SentAt) || !second.Header.Namespaced || first.Header.Namespaced {
		t.Errorf("resend %+v, first %+v", second, first)
	}
	if got := s.Available("708", tomorrow(), 2, 1); got != 8 {
		t.Errorf("%d places left after a booking and its resend", got)
	}
	// Over HTTP in the other forms: the same reply.
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		status, reply := send(t, s, f, req)
		if b := as[*legacy.BookingReply](t, reply); status != 200 || b.BookingRef != first.BookingRef {
			t.Errorf("%v resend: %d %+v", f, status, b)
		}
	}
	changed := *req
	changed.Places = adults(3)
	nr := negative(t, handle(s, &changed), legacy.CodeInvalidMessage)
	if !strings.Contains(nr.Text, "messageId M1 was used before") {
		t.Errorf("text %q", nr.Text)
	}
	otherSender := *req
	otherSender.Header.Sender = 85
	if b := as[*legacy.BookingReply](t, handle(s, &otherSender)); b.BookingRef == first.BookingRef {
		t.Error("another sender's message was taken for a resend")
	}
	// A refusal is remembered too: after the places are freed, the resend
	// of a refused booking is still refused (the same reply).
	big := bookReq("M2", "708", adults(9))
	negative(t, handle(s, big), legacy.CodeNoAvailability)
	as[*legacy.CancelReply](t, handle(s, cancelOf("M3", first.BookingRef, nil)))
	negative(t, handle(s, big), legacy.CodeNoAvailability)
	// A cancel resent: the same CancelReply, not ALREADY_CANCELLED.
	as[*legacy.CancelReply](t, handle(s, cancelOf("M3", first.BookingRef, nil)))
}

// Replies and bookings are bounded and forgotten after Retention (bookings
// after their train has left).
func TestRetentionAndBounds(t *testing.T) {
	s, clock := newSandbox(t, Config{Retention: time.Hour, MaxEntries: 3})
	b := as[*legacy.BookingReply](t, handle(s, bookReq("E1", "708", adults(1))))
	as[*legacy.BookingReply](t, handle(s, bookReq("E2", "708", adults(1))))
	as[*legacy.BookingReply](t, handle(s, bookReq("E3", "708", adults(1))))
	nr := negative(t, handle(s, bookReq("E4", "708", adults(1))), legacy.CodeNoAvailability)
	if !nr.Retryable || !strings.Contains(nr.Text, "maximum of 3 bookings") {
		t.Errorf("full: %+v", nr)
	}
	// E1's reply was dropped for E4's (3 remembered): a resend is new now,
	// and it is refused as full.
	negative(t, handle(s, bookReq("E1", "708", adults(1))), legacy.CodeNoAvailability)
	// An hour later the replies are forgotten; the bookings stay until
	// their train has left an hour ago.
	clock.Advance(time.Hour + time.Minute)
	if len(s.Bookings()) != 3 {
		t.Fatal("bookings dropped before their train left")
	}
	leg, _ := Demo().Leg("708", tomorrow(), "8500010", "8503000")
	clock.Advance(leg.Departure.Sub(clock.Now()) + time.Hour + time.Minute)
	if n := len(s.Bookings()); n != 0 {
		t.Errorf("%d bookings kept after their train left", n)
	}
	negative(t, handle(s, cancelOf("E5", b.BookingRef, nil)), legacy.CodeBookingNotFound)
	if got := s.Available("708", tomorrow(), 2, 1); got != DefaultCapacity {
		t.Errorf("dropped bookings hold %d places", DefaultCapacity-got)
	}
}

// 200 parallel bookings for 40 places: exactly 40 bookings with 40
// distinct places and 160 NO_AVAILABILITY.
func TestParallelBookings(t *testing.T) {
	s, _ := newSandbox(t, Config{Capacity: 40})
	var mu sync.Mutex
	counts := map[string]int{}
	places := map[legacy.Place]bool{}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			reply := handle(s, bookReq("P"+strconv.Itoa(i), "9203", adults(1)))
			mu.Lock()
			defer mu.Unlock()
			switch r := reply.(type) {
			case *legacy.BookingReply:
				counts["booked"]++
				places[r.Places[0]] = true
			case *legacy.NegativeReply:
				counts[string(r.Code)]++
			default:
				counts["other"]++
			}
		})
	}
	wg.Wait()
	if counts["booked"] != 40 || counts["NO_AVAILABILITY"] != 160 || len(counts) != 2 || len(places) != 40 {
		t.Errorf("counts %v, %d distinct places", counts, len(places))
	}
}

// Latency: added to every answer, cut short by the context.
func TestLatency(t *testing.T) {
	s, _ := newSandbox(t, Config{Latency: 30 * time.Millisecond})
	begin := time.Now()
	as[*legacy.AvailabilityReply](t, handle(s, availability("L1", "708", adults(1))))
	if d := time.Since(begin); d < 30*time.Millisecond {
		t.Errorf("answered after %s, latency 30ms", d)
	}
	slow, _ := newSandbox(t, Config{Latency: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	begin = time.Now()
	b := as[*legacy.BookingReply](t, slow.Handle(ctx, bookReq("L2", "708", adults(1))))
	if d := time.Since(begin); d > 30*time.Second {
		t.Errorf("a cancelled context waited %s", d)
	}
	// The message took effect: the resend gets the booking.
	if again := as[*legacy.BookingReply](t, slow.Handle(ctx, bookReq("L2", "708", adults(1)))); again.BookingRef != b.BookingRef {
		t.Errorf("resend %s, booked %s", again.BookingRef, b.BookingRef)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{System: 10000}, "system 10000"},
		{Config{Capacity: -1}, "capacity -1"},
		{Config{Capacity: MaxCapacity + 1}, "capacity"},
		{Config{Tariffs: map[int]int{}}, "tariff table is empty"},
		{Config{Tariffs: map[int]int{1: -5}}, "percentage -5"},
		{Config{Tariffs: map[int]int{10000: 5}}, "tariff code 10000"},
		{Config{Fares: []Fare{{TravelClass: 3, ServiceCode: 1}}}, "travel class 3"},
		{Config{Fares: []Fare{{TravelClass: 1, ServiceCode: 4}}}, "service code 4"},
		{Config{Fares: []Fare{{1, 1, 100}, {1, 1, 200}}}, "given twice"},
		{Config{Currency: "eur"}, "currency"},
		{Config{CancelFeePercent: 101}, "cancel fee"},
		{Config{Foreign: []Foreign{{Train: "462", System: 80, Operator: "108"}}}, "operator"},
		{Config{Foreign: []Foreign{{Train: "462x12", System: 80, Operator: "1080"}}}, "train"},
		{Config{Foreign: []Foreign{{Train: "462", System: 0, Operator: "1080"}}}, "reservation system 0"},
		{Config{Foreign: []Foreign{{"462", 80, "1080"}, {"462", 81, "1081"}}}, "listed twice"},
		{Config{System: 85, Foreign: []Foreign{{"462", 85, "1085"}}}, "this system's own"},
		{Config{Latency: -time.Second}, "latency"},
		{Config{Latency: time.Hour}, "latency"},
		{Config{OfferTTL: time.Millisecond}, "offer_ttl"},
		{Config{Retention: time.Millisecond}, "retention"},
		{Config{MaxEntries: -1}, "max_entries"},
		{Config{MaxBody: legacy.MaxBodyBytes + 1}, "max_body"},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); c.System != DefaultSystem || c.Capacity != DefaultCapacity || c.Currency != "EUR" || c.MaxBody != DefaultMaxBody {
		t.Errorf("defaults %+v", c)
	}
}

func TestParseAmount(t *testing.T) {
	for in, want := range map[string]int64{"12": 1200, "12.9": 1290, "12.90": 1290, "0.05": 5, "0": 0} {
		if got, err := ParseAmount(in); err != nil || got != want {
			t.Errorf("%s: %d %v", in, got, err)
		}
	}
	for _, in := range []string{"", "12.", "12.345", "-1", "1,50", ".5", "1e3", "1234567890"} {
		if _, err := ParseAmount(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	for _, tc := range []struct {
		in       string
		decimals int
		want     int64
	}{{"1200", 0, 1200}, {"12.345", 3, 12345}, {"12.3", 3, 12300}, {"12", 3, 12000}} {
		if got, err := ParseAmountIn(tc.in, tc.decimals); err != nil || got != tc.want {
			t.Errorf("%s with %d decimals: %d %v", tc.in, tc.decimals, got, err)
		}
	}
	if _, err := ParseAmountIn("12.50", 0); err == nil {
		t.Error("12.50 yen accepted")
	}
	if formatAmount(5, 2) != "0.05" || formatAmount(123456, 2) != "1234.56" || formatAmount(1235, 0) != "1235" || formatAmount(12345, 3) != "12.345" || formatAmount(5, 3) != "0.005" {
		t.Error("formatAmount")
	}
}

func luhnValid(s string) bool {
	sum := 0
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if (len(s)-1-i)%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// The reply memory keeps the newest max, in order, and its queue does not
// grow without bound.
func TestRepliesBounded(t *testing.T) {
	rs := newReplies()
	for i := range 5000 {
		rs.put(strconv.Itoa(i), &remembered{at: start.Add(time.Duration(i) * time.Second)}, 1000)
	}
	if len(rs.byKey) != 1000 || len(rs.order)-rs.head != 1000 || len(rs.order) > 3000 {
		t.Fatalf("%d kept, queue %d from %d", len(rs.byKey), len(rs.order), rs.head)
	}
	if _, ok := rs.get("3999"); ok {
		t.Error("an old reply is still kept")
	}
	if _, ok := rs.get("4000"); !ok {
		t.Error("a recent reply was dropped")
	}
	rs.expire(start.Add(4500 * time.Second))
	if _, ok := rs.get("4499"); ok || len(rs.byKey) != 500 {
		t.Errorf("after expiry: %d kept", len(rs.byKey))
	}
}
