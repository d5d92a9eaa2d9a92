package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// sandboxBooking reads booking id at the tap's sandbox, with the access
// token osdm_token last sent to it.
func (tap *partnerTap) sandboxBooking(t *testing.T, id string) *osdm.Booking {
	t.Helper()
	tap.mu.Lock()
	bearer := tap.bearer
	tap.mu.Unlock()
	req, _ := http.NewRequest(http.MethodGet, tap.target.String()+"/bookings/"+id, nil)
	req.Header.Set("Authenticate", bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var br osdm.BookingResponse
	if err := json.Unmarshal(body, &br); err != nil || br.Booking == nil {
		t.Fatalf("GET /bookings/%s: %d %s", id, resp.StatusCode, body)
	}
	return br.Booking
}

// liveTrains lists the trains of a booking's live reservations, and the
// number of its FULFILLED fulfilments.
func liveTrains(b *osdm.Booking) ([]string, int) {
	var trains []string
	for _, bo := range b.BookedOffers {
		for _, r := range bo.Reservations {
			if r.Status == osdm.BookingPartFulfilled && r.PlaceAllocation != nil && len(r.PlaceAllocation.ReservedPlaces) > 0 {
				trains = append(trains, r.PlaceAllocation.ReservedPlaces[0].VehicleNumber)
			}
		}
	}
	live := 0
	for _, f := range b.Fulfillments {
		if f.Status == osdm.FulfillmentFulfilled {
			live++
		}
	}
	return trains, live
}

// calledPaths lists "METHOD path?query" of the tapped exchanges.
func calledPaths(exs []tappedExchange) string {
	var out []string
	for _, ex := range exs {
		p := ex.Method + " " + ex.Path
		if ex.RawQuery != "" {
			p += "?" + ex.RawQuery
		}
		out = append(out, p)
	}
	return strings.Join(out, "\n")
}

// TestExampleChainAfterSales drives every after-sales message, in XML
// and in JSON, through Caddyfile.example (osdm_convert, osdm_token and
// osdm_sandbox in one real Caddy; every OSDM call and answer checked
// against the spec by the tap): exchange offers, an exchange, passenger
// data, a partial cancellation and its resend, synchronisation, the rest
// cancelled, and a technical rollback.
func TestExampleChainAfterSales(t *testing.T) {
	c := startExampleChain(t)
	for _, f := range testFormats {
		t.Run(f.String(), func(t *testing.T) {
			three := secondClassSeats(legacy.Tariff{Code: 1, Count: 3})
			status, r := c.send(t, "alpine", f, &legacy.BookingRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "book")},
				Journey: journeyOn("9203"), Places: three,
				Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Muster"}, {FirstName: "Ben", LastName: "Muster"}, {FirstName: "Cleo", LastName: "Muster"}}})
			booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)
			c.alpine.take()

			// Exchange offers for train 9207.
			status, r = c.send(t, "alpine", f, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "xoffers")},
				Journey: journeyOn("9207"), Places: three, ExchangeOf: booked.BookingRef})
			avail := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
			if len(avail.Offers) == 0 || avail.Offers[0].Exchange == nil || avail.Offers[0].Exchange.Fee == nil {
				t.Fatalf("exchange offers: %+v", avail)
			}

			// The exchange.
			exchange := &legacy.BookingRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "exchange")}, Journey: journeyOn("9207"),
				Places: three, OfferRef: avail.Offers[0].OfferRef, ExchangeOf: booked.BookingRef}
			status, r = c.send(t, "alpine", f, exchange)
			ex := must[*legacy.BookingReply](t, status, r, http.StatusOK)
			if ex.BookingRef != booked.BookingRef || ex.ExchangeOf != booked.BookingRef || ex.Exchange == nil || len(ex.Places) != 3 ||
				ex.TicketControlNumber == booked.TicketControlNumber || !reflect.DeepEqual(ex.Exchange, avail.Offers[0].Exchange) {
				t.Fatalf("exchange: %+v (offered %+v)", ex, avail.Offers[0].Exchange)
			}
			paths := calledPaths(c.alpine.take())
			for _, want := range []string{"POST /bookings/" + booked.BookingRef + "/exchange-offers?embed=ALL", "POST /bookings/" + booked.BookingRef + "/exchange-operations",
				"POST /bookings/" + booked.BookingRef + "/fulfillments"} {
				if !strings.Contains(paths, want) {
					t.Errorf("no %s in\n%s", want, paths)
				}
			}
			if trains, live := liveTrains(c.alpine.sandboxBooking(t, booked.BookingRef)); strings.Join(trains, ",") != "9207" || live != 1 {
				t.Errorf("partner after the exchange: trains %v, %d live fulfilment(s)", trains, live)
			}

			// Passenger data.
			status, r = c.send(t, "alpine", f, &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "pax")}, BookingRef: booked.BookingRef,
				Passengers: []legacy.PassengerData{{Index: 2, FirstName: "Benedikt", DateOfBirth: "1985-02-28"}}})
			pd := must[*legacy.PassengerDataReply](t, status, r, http.StatusOK)
			if len(pd.Passengers) != 3 || pd.Passengers[1] != (legacy.PassengerData{Index: 2, FirstName: "Benedikt", LastName: "Muster", DateOfBirth: "1985-02-28"}) {
				t.Errorf("passenger data: %+v", pd.Passengers)
			}

			// A partial cancellation, and its resend.
			partial := &legacy.CancelRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "partial")}, BookingRef: booked.BookingRef, Places: ex.Places[:1]}
			status, r = c.send(t, "alpine", f, partial)
			pc := must[*legacy.CancelReply](t, status, r, http.StatusOK)
			if pc.Status != legacy.StatusPartiallyRefunded || pc.RefundAmount == nil || pc.Fee == nil || !reflect.DeepEqual(pc.Places, ex.Places[:1]) {
				t.Fatalf("partial cancellation: %+v", pc)
			}
			exs := c.alpine.take()
			found := false
			for _, e := range exs {
				if strings.HasSuffix(e.Path, "/refund-offers") && strings.Contains(string(e.ReqBody), `"refundSpecifications"`) {
					found = true
				}
			}
			if !found {
				t.Errorf("no refund offer with refundSpecifications in\n%s", calledPaths(exs))
			}
			status, r = c.send(t, "alpine", f, partial)
			if again := must[*legacy.CancelReply](t, status, r, http.StatusOK); !reflect.DeepEqual(again, pc) {
				t.Errorf("resend: %+v, first %+v", again, pc)
			}
			if exs := c.alpine.take(); len(exs) != 0 {
				t.Errorf("the resend made OSDM calls:\n%s", calledPaths(exs))
			}

			// Synchronisation: what became of the exchange.
			status, r = c.send(t, "alpine", f, &legacy.SynchroRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "sync")}, OriginalMessageID: exchange.Header.MessageID})
			sr := must[*legacy.SynchroReply](t, status, r, http.StatusOK)
			if sr.State != legacy.StateDone || !reflect.DeepEqual(sr.Reply, legacy.Reply(ex)) {
				t.Errorf("synchro of the exchange: %+v", sr)
			}
			status, r = c.send(t, "alpine", f, &legacy.SynchroRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "sync-none")}, OriginalMessageID: "never-sent-" + f.String()})
			if sr := must[*legacy.SynchroReply](t, status, r, http.StatusOK); sr.State != legacy.StateUnknown || sr.Reply != nil {
				t.Errorf("synchro of nothing: %+v", sr)
			}

			// The rest, cancelled whole.
			status, r = c.send(t, "alpine", f, &legacy.CancelRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "rest")}, BookingRef: booked.BookingRef})
			rest := must[*legacy.CancelReply](t, status, r, http.StatusOK)
			if rest.Status != legacy.StatusRefunded || len(rest.Places) != 2 {
				t.Errorf("the rest: %+v", rest)
			}

			// A technical rollback of another booking.
			book2 := &legacy.BookingRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "book2")}, Journey: journeyOn("9203"),
				Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1})}
			status, r = c.send(t, "alpine", f, book2)
			b2 := must[*legacy.BookingReply](t, status, r, http.StatusOK)
			status, r = c.send(t, "alpine", f, &legacy.SynchroRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "rollback")},
				OriginalMessageID: book2.Header.MessageID, Rollback: true})
			rb := must[*legacy.SynchroReply](t, status, r, http.StatusOK)
			if rb.State != legacy.StateRolledBack || rb.RefundAmount == nil || rb.RefundAmount.Amount != b2.Price.Amount || rb.Fee == nil {
				t.Errorf("rollback: %+v", rb)
			}
			for _, bk := range c.alpine.sandboxBookings(t) {
				if bk.ID == b2.BookingRef && bk.Status != "REFUNDED" {
					t.Errorf("rolled back booking is %s at the partner", bk.Status)
				}
			}
		})
	}
}
