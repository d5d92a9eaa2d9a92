package integration

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// freeSeats is what the partner offers of second-class seats on train,
// asked through the chain.
func (fx *faultFixture) freeSeats(t *testing.T, train int) int {
	t.Helper()
	status, r := fx.c.send(t, "alpine", legacy.JSON, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: fx.id("seats")},
		Journey: journeyOn(strconv.Itoa(train)), Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1})})
	a := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
	for _, o := range a.Offers {
		if o.ServiceCode == legacy.ServiceSeat && o.AvailablePlaces != nil {
			return *o.AvailablePlaces
		}
	}
	t.Fatalf("no seat offer on %d: %+v", train, a)
	return 0
}

// TestFaultAfterSalesSteps fails each step of a partial cancellation and
// of an exchange once, in every way a partner fails, through the example
// chain; the message is then resent without faults. The final reply and
// the partner agree: one place refunded once, or none; the booking on the
// new train or the old, never both (a booking with two live tickets or
// places held on both trains) and never neither.
func TestFaultAfterSalesSteps(t *testing.T) {
	fx := newFaultFixture(t)
	two := secondClassSeats(legacy.Tariff{Code: 1, Count: 2})
	type scenario struct {
		kind  string
		steps []converter.Step
	}
	for _, sc := range []scenario{
		{"partial cancellation", []converter.Step{converter.StepReadBooking, converter.StepRefundOffers, converter.StepRefundOffer}},
		{"exchange", []converter.Step{converter.StepReadBooking, converter.StepExchangeOffers, converter.StepExchangeOperation, converter.StepFulfillments}},
	} {
		for _, step := range sc.steps {
			for _, kind := range allFaults {
				t.Run(sc.kind+"/"+string(step)+"/"+string(kind), func(t *testing.T) {
					fx.train += 2
					oldTrain, newTrain := fx.train, fx.train+1
					status, r := fx.c.send(t, "alpine", legacy.XML, &legacy.BookingRequest{Header: legacy.Header{MessageID: fx.id("setup")},
						Journey: journeyOn(strconv.Itoa(oldTrain)), Places: two})
					booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)
					var msg legacy.Message
					if sc.kind == "exchange" {
						msg = &legacy.BookingRequest{Header: legacy.Header{MessageID: fx.id("exchange")}, Journey: journeyOn(strconv.Itoa(newTrain)),
							Places: two, ExchangeOf: booked.BookingRef}
					} else {
						msg = &legacy.CancelRequest{Header: legacy.Header{MessageID: fx.id("partial")}, BookingRef: booked.BookingRef, Places: booked.Places[:1]}
					}
					inj := fx.inj["alpine"]
					inj.set(faultRule{step: step, kind: kind, times: 1})
					_, first, _ := fx.try(t, "alpine", legacy.XML, msg)
					if got := inj.clear(); len(got) == 0 {
						t.Fatalf("no fault injected (first reply %+v)", first)
					}
					_, final, err := fx.try(t, "alpine", legacy.XML, msg)
					if err != nil {
						t.Fatal(err)
					}
					b := fx.tap["alpine"].sandboxBooking(t, booked.BookingRef)
					trains, live := liveTrains(b)
					held := 0
					for _, bo := range b.BookedOffers {
						for _, res := range bo.Reservations {
							if res.PlaceAllocation != nil && (res.Status == "FULFILLED") {
								for _, rp := range res.PlaceAllocation.ReservedPlaces {
									held += len(rp.PlaceNumbers)
								}
							}
						}
					}
					if sc.kind == "exchange" {
						freeOld, freeNew := fx.freeSeats(t, oldTrain), fx.freeSeats(t, newTrain)
						switch reply := final.(type) {
						case *legacy.BookingReply:
							if strings.Join(trains, ",") != strconv.Itoa(newTrain) || live != 1 || freeOld != 40 || freeNew != 38 {
								t.Errorf("exchanged, but the partner has trains %v, %d live tickets, %d/%d free", trains, live, freeOld, freeNew)
							}
						case *legacy.NegativeReply:
							if strings.Join(trains, ",") != strconv.Itoa(oldTrain) || live != 1 || freeOld != 38 || freeNew != 40 ||
								!strings.Contains(reply.Text, "stands") {
								t.Errorf("not exchanged (%s: %s), but the partner has trains %v, %d live tickets, %d/%d free", reply.Code, reply.Text, trains, live, freeOld, freeNew)
							}
						default:
							t.Errorf("final reply %T %+v", final, final)
						}
						return
					}
					switch reply := final.(type) {
					case *legacy.CancelReply:
						if reply.Status != legacy.StatusPartiallyRefunded || held != 1 || live != 1 {
							t.Errorf("cancelled (%+v), but the partner holds %d place(s), %d live tickets", reply, held, live)
						}
					case *legacy.NegativeReply:
						if held != 2 || live != 1 {
							t.Errorf("not cancelled (%s: %s), but the partner holds %d place(s)", reply.Code, reply.Text, held)
						}
					default:
						t.Errorf("final reply %T %+v", final, final)
					}
				})
			}
		}
	}
}
