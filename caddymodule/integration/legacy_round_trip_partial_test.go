package integration

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// farPlace is one place of the far system's booking: its passenger's
// data, its tariff, and whether it was cancelled.
type farPlace struct {
	lastName, dateOfBirth string
	tariff                int
	cancelled             bool
}

// farBooking returns the far system's booking on train (the one it holds
// confirmed, or the last one when none is), and its places by number.
func farBooking(t *testing.T, sb *legacysandbox.Sandbox, train string) (legacysandbox.BookingInfo, map[string]farPlace) {
	t.Helper()
	var b *legacysandbox.BookingInfo
	for _, hb := range sb.Bookings() {
		if hb.Train == train {
			b = &hb
		}
	}
	if b == nil {
		t.Fatalf("the far system holds no booking on train %s", train)
	}
	var tariffs []int
	for _, tc := range b.Tariffs {
		for range tc.Count {
			tariffs = append(tariffs, tc.Code)
		}
	}
	out := map[string]farPlace{}
	for i, pl := range b.Places {
		fp := farPlace{cancelled: pl.Cancelled}
		if i < len(tariffs) {
			fp.tariff = tariffs[i]
		}
		if i < len(b.Names) {
			fp.lastName, fp.dateOfBirth = b.Names[i].LastName, b.Names[i].DateOfBirth
		}
		out[pl.Number] = fp
	}
	return *b, out
}

// cents reads a legacy amount ("10.80") in cents; "" is 0.
func cents(t *testing.T, p *legacy.Price) int64 {
	t.Helper()
	if p == nil {
		return 0
	}
	whole, frac, _ := strings.Cut(p.Amount, ".")
	frac = (frac + "00")[:2]
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		t.Fatalf("amount %q: %v", p.Amount, err)
	}
	return n
}

// numbers lists the place numbers of places.
func numbers(places []legacy.Place) []string {
	var out []string
	for _, p := range places {
		out = append(out, p.Number)
	}
	return out
}

// TestOSDMLegacyIntegrationLegacyPartialCancellationsAddUp: a legacy
// system cancels a booking of adult, child, adult, child (interleaved
// tariffs) on another legacy system over OSDM place by place. After each
// step the near system's replies and the far system agree: the places a
// CancelReply lists are the ones the far system freed then, a passenger
// change reaches its own place (and one for a cancelled traveller is
// refused, nothing changed), a resend changes nothing, a place cancelled
// before cannot be cancelled again, and the cancellation of the rest lists
// only the places left. The refunds and fees of the CancelReplies add up to
// what was paid, as the far system's do.
func TestOSDMLegacyIntegrationLegacyPartialCancellationsAddUp(t *testing.T) {
	rt := legacyOverOSDM(t)
	places := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1,
		Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}, {Code: 1, Count: 1}, {Code: 2, Count: 1}}}
	reply := rt.post(&legacy.BookingRequest{Header: header("RTP-B-"), Places: places,
		Journey:    rt.journey("708"),
		Passengers: []legacy.Passenger{{FirstName: "Ada", LastName: "Lovelace"}, {FirstName: "Byron", LastName: "King"}}})
	br, ok := reply.(*legacy.BookingReply)
	if !ok || len(br.Places) != 4 {
		t.Fatalf("BookingRequest over OSDM: %#v", reply)
	}
	wantTariffs := []int{1, 2, 1, 2}
	var refunded, fees int64
	cancelledNow := map[string]bool{}
	// cancelled checks a CancelReply: its status and places, and that the
	// far system freed exactly the places cancelled so far.
	cancelled := func(step string, reply legacy.Reply, status string, want ...legacy.Place) *legacy.CancelReply {
		t.Helper()
		cr, ok := reply.(*legacy.CancelReply)
		if !ok || cr.Status != status || !reflect.DeepEqual(numbers(cr.Places), numbers(want)) {
			t.Fatalf("%s: %#v, want %s of %v", step, reply, status, numbers(want))
		}
		refunded, fees = refunded+cents(t, cr.RefundAmount), fees+cents(t, cr.Fee)
		for _, p := range want {
			cancelledNow[p.Number] = true
		}
		_, at := farBooking(t, rt.far, "708")
		for i, p := range br.Places {
			if got := at[p.Number]; got.cancelled != cancelledNow[p.Number] || got.tariff != wantTariffs[i] {
				t.Errorf("%s: traveller %d's place %s at the far system: %+v, want cancelled %v, tariff %d", step, i+1, p.Number, got, cancelledNow[p.Number], wantTariffs[i])
			}
		}
		return cr
	}
	// The first child's place.
	c1 := &legacy.CancelRequest{Header: header("RTP-C1-"), BookingRef: br.BookingRef, Places: br.Places[1:2]}
	first := cancelled("the first child's place", rt.post(c1), legacy.StatusPartiallyRefunded, br.Places[1])
	before, _ := farBooking(t, rt.far, "708")
	if again := rt.post(c1); !reflect.DeepEqual(again, legacy.Reply(first)) {
		t.Errorf("resent cancellation: %#v, first answered %#v", again, first)
	}
	if r := rt.post(&legacy.CancelRequest{Header: header("RTP-C1b-"), BookingRef: br.BookingRef, Places: br.Places[1:2]}); func() bool {
		nr, ok := r.(*legacy.NegativeReply)
		return !ok || nr.Code != legacy.CodeInvalidMessage || !strings.Contains(nr.Text, br.Places[1].Number)
	}() {
		t.Errorf("a cancelled place cancelled again: %#v", r)
	}
	if after, _ := farBooking(t, rt.far, "708"); after.Refund != before.Refund || after.Fee != before.Fee {
		t.Errorf("a resend or a second cancellation of the place changed the far booking: refund %s fee %s, was %s %s", after.Refund, after.Fee, before.Refund, before.Fee)
	}

	// The second adult is named on its own place; the cancelled child
	// cannot be, and nothing changes.
	reply = rt.post(&legacy.PassengerDataRequest{Header: header("RTP-P3-"), BookingRef: br.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 3, FirstName: "Charles", LastName: "Babbage", DateOfBirth: "1971-12-26"}}})
	if pr, ok := reply.(*legacy.PassengerDataReply); !ok || len(pr.Passengers) != 4 || pr.Passengers[2].LastName != "Babbage" {
		t.Fatalf("passenger data of traveller 3: %#v", reply)
	}
	reply = rt.post(&legacy.PassengerDataRequest{Header: header("RTP-P2-"), BookingRef: br.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 2, FirstName: "Augusta", LastName: "King"}}})
	if nr, ok := reply.(*legacy.NegativeReply); !ok || nr.Code != legacy.CodeInvalidMessage || !strings.Contains(nr.Text, "Nothing was changed") {
		t.Errorf("passenger data of the cancelled traveller 2: %#v", reply)
	}
	_, at := farBooking(t, rt.far, "708")
	for i, want := range []string{"Lovelace", "King", "Babbage", ""} {
		if got := at[br.Places[i].Number]; got.lastName != want {
			t.Errorf("traveller %d's place %s is named %q at the far system, want %q", i+1, br.Places[i].Number, got.lastName, want)
		}
	}

	// The second adult's place, then the rest: the first adult's and the
	// second child's places, only.
	cancelled("the second adult's place", rt.post(&legacy.CancelRequest{Header: header("RTP-C2-"), BookingRef: br.BookingRef, Places: br.Places[2:3]}),
		legacy.StatusPartiallyRefunded, br.Places[2])
	cancelled("the rest", rt.post(&legacy.CancelRequest{Header: header("RTP-C3-"), BookingRef: br.BookingRef}),
		legacy.StatusRefunded, br.Places[0], br.Places[3])
	far, _ := farBooking(t, rt.far, "708")
	if far.Status != legacy.StatusCancelled || refunded+fees != cents(t, br.Price) ||
		refunded != cents(t, &legacy.Price{Amount: far.Refund}) || fees != cents(t, &legacy.Price{Amount: far.Fee}) {
		t.Errorf("refunded %d + fees %d (cents) of %s paid; the far system: %s, refund %s, fee %s", refunded, fees, br.Price.Amount, far.Status, far.Refund, far.Fee)
	}
	if free := rt.far.Available("708", rt.day, legacy.SecondClass, legacy.ServiceSeat); free != rt.far.Config().Capacity {
		t.Errorf("%d of %d seats free after everything was cancelled", free, rt.far.Config().Capacity)
	}
}
