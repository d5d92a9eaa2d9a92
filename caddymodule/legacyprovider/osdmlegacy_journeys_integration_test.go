package legacyprovider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// journeyTrains lists each trip's trains ("9571+96003") in order.
func journeyTrains(resp *osdm.OfferCollectionResponse) []string {
	var out []string
	for _, tr := range resp.Trips {
		var trains []string
		for _, l := range tr.Legs {
			if l.TimedLeg != nil {
				trains = append(trains, l.TimedLeg.Service.VehicleNumbers[0])
			}
		}
		out = append(out, strings.Join(trains, "+"))
	}
	return out
}

// askedTrains are the trains of the legacy messages a search sent, in the
// order they were sent, each once.
func askedTrains(t *testing.T, lc *legacyChain) []string {
	t.Helper()
	var out []string
	for _, s := range lc.ls.requests() {
		req, err := legacy.Decode(legacy.XML, s.body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, req.(*legacy.AvailabilityRequest).Journey.TrainNumber)
	}
	return out
}

func searchJourneys(t *testing.T, lc *legacyChain, body string) osdm.OfferCollectionResponse {
	t.Helper()
	status, _, b := lc.post(t, "/offers", body, osdmspec.V310)
	var resp osdm.OfferCollectionResponse
	if err := json.Unmarshal(b, &resp); err != nil || status != 200 {
		t.Fatalf("%d %s", status, b)
	}
	return resp
}

// A search with no direct train answers the journeys with one change at
// Strasbourg, no change shorter than transfers.txt's 12 minutes there,
// best first; each train asked once; one offer per trip with a
// reservation offer part per train, priced from its own reply, the
// offer's minimal price their sum.
func TestOSDMLegacyJourneySearch(t *testing.T) {
	lc := startJourneyChain(t, true, "", legacysandbox.Config{})
	resp := searchJourneys(t, lc, journeySearch("06:30"))
	if got, want := strings.Join(journeyTrains(&resp), " "), "9571+96003 9573+96005 9575+96007"; got != want {
		t.Fatalf("journeys %s, want %s", got, want)
	}
	asked := askedTrains(t, lc)
	seen := map[string]int{}
	for _, tr := range asked {
		seen[tr]++
	}
	if len(asked) != 6 || seen["96001"] > 0 {
		t.Errorf("legacy messages for %v, want the six trains of the journeys once each", asked)
	}
	trip := resp.Trips[0]
	if trip.Transfers != 1 || len(trip.Legs) != 3 || trip.Legs[1].TransferLeg == nil ||
		trip.Legs[1].TransferLeg.Duration != "PT20M" || trip.Legs[1].TransferLeg.Start.StopPlaceRef != "urn:uic:stn:"+strasbourg {
		t.Fatalf("trip %+v", trip)
	}
	if trip.StartTime.Format("15:04") != "07:00" || trip.EndTime.Format("15:04") != "10:30" || trip.Duration != "PT3H30M" {
		t.Errorf("trip from %s to %s (%s), want 07:00 to 10:30", trip.StartTime, trip.EndTime, trip.Duration)
	}
	legIDs := []string{trip.Legs[0].ID, trip.Legs[1].ID, trip.Legs[2].ID}
	if legIDs[0] != trip.ID+"-leg-1" || legIDs[1] != trip.ID+"-transfer-1" || legIDs[2] != trip.ID+"-leg-2" {
		t.Errorf("leg ids %v", legIDs)
	}
	if len(resp.Offers) != 3 {
		t.Fatalf("%d offers, want one per trip", len(resp.Offers))
	}
	for _, o := range resp.Offers {
		if len(o.ReservationOfferParts) != 2 {
			t.Fatalf("offer %s: %d reservation parts, want 2", o.OfferID, len(o.ReservationOfferParts))
		}
		var sum int64
		for i, part := range o.ReservationOfferParts {
			legs := part.TripCoverage.CoveredLegIDs
			if part.TripCoverage.CoveredTripID != o.TripCoverage.CoveredTripID || len(legs) != 1 ||
				!strings.HasSuffix(legs[0], "-leg-"+string(rune('1'+i))) {
				t.Errorf("part %d covers %+v", i, part.TripCoverage)
			}
			sum += part.Price.Amount
		}
		if o.OfferSummary.MinimalPrice.Amount != sum || sum == 0 {
			t.Errorf("minimal price %d, want the parts' sum %d", o.OfferSummary.MinimalPrice.Amount, sum)
		}
	}
}

// No direct train and no journey within the window: 404 saying so, no
// legacy message.
func TestOSDMLegacyJourneySearchNone(t *testing.T) {
	lc := startJourneyChain(t, true, "", legacysandbox.Config{})
	status, _, b := lc.post(t, "/offers", journeySearch("13:00"), osdmspec.V310)
	var p osdm.Problem
	_ = json.Unmarshal(b, &p)
	if status != 404 || p.Code != osdm.CodeOfferNoResults || !strings.Contains(p.Detail, "direct or with at most 1 change,") || len(lc.ls.requests()) != 0 {
		t.Errorf("%d %s; %d legacy messages", status, b, len(lc.ls.requests()))
	}
	// max_changes 0: direct trains only, as before journeys existed.
	lc = startJourneyChain(t, true, "\n\t\t\tmax_changes 0", legacysandbox.Config{})
	if status, _, b := lc.post(t, "/offers", journeySearch("06:30"), osdmspec.V310); status != 404 || !strings.Contains(string(b), "no direct train") {
		t.Errorf("max_changes 0: %d %s", status, b)
	}
}

// max_trains counts each train once: with 4, the two first journeys
// (four trains) are offered, not the third.
func TestOSDMLegacyJourneySearchMaxTrains(t *testing.T) {
	lc := startJourneyChain(t, true, "\n\t\t\tmax_trains 4", legacysandbox.Config{})
	resp := searchJourneys(t, lc, journeySearch("06:30"))
	if got := strings.Join(journeyTrains(&resp), " "); got != "9571+96003 9573+96005" {
		t.Errorf("journeys %s, want 9571+96003 9573+96005", got)
	}
	if n := len(lc.ls.requests()); n != 4 {
		t.Errorf("%d legacy messages, want 4", n)
	}
}

// Where transfers.txt says nothing, min_transfer rules the change: 4
// minutes let 9571 meet 96001 five minutes later; 25 minutes leave none of
// the 20-minute changes.
func TestOSDMLegacyJourneySearchMinTransfer(t *testing.T) {
	lc := startJourneyChain(t, false, "\n\t\t\tmin_transfer 4m", legacysandbox.Config{})
	resp := searchJourneys(t, lc, journeySearch("06:30"))
	if got := journeyTrains(&resp); len(got) == 0 || got[0] != "9571+96001" {
		t.Errorf("journeys %v, want 9571+96001 first", got)
	}
	lc = startJourneyChain(t, false, "\n\t\t\tmin_transfer 25m", legacysandbox.Config{})
	resp = searchJourneys(t, lc, journeySearch("06:30"))
	if got := strings.Join(journeyTrains(&resp), " "); got != "9571+96005 9573+96007" {
		t.Errorf("journeys %s, want 9571+96005 9573+96007", got)
	}
}

// A trip specification of two legs is offered as one trip when the
// timetable has both trains and the change is long enough; otherwise it
// is refused, naming why, before any legacy message.
func TestOSDMLegacyJourneyTripSpecification(t *testing.T) {
	lc := startJourneyChain(t, true, "", legacysandbox.Config{})
	resp := searchJourneys(t, lc, journeySpec(
		journeyLeg("9571", parisEst, "07:00", strasbourg, "08:50"), journeyLeg("96003", strasbourg, "09:10", baselSBB, "10:30")))
	if got := journeyTrains(&resp); len(got) != 1 || got[0] != "9571+96003" || len(resp.Offers) != 1 {
		t.Fatalf("journeys %v, %d offers", got, len(resp.Offers))
	}
	if n := len(lc.ls.requests()); n != 2 {
		t.Errorf("%d legacy messages, want 2", n)
	}
	lc.ls.reset()
	for _, tc := range []struct {
		name, body, slug, pointer, detail string
	}{
		{"short change", journeySpec(journeyLeg("9571", parisEst, "07:00", strasbourg, "08:50"), journeyLeg("96001", strasbourg, "08:55", baselSBB, "10:15")),
			"journeys", "#/tripSpecifications[0]/legs[1]/timedLeg/start", "leaves 5 minutes, less than the 12 minutes it needs"},
		{"unknown time", journeySpec(journeyLeg("9571", parisEst, "07:05", strasbourg, "08:50"), journeyLeg("96003", strasbourg, "09:10", baselSBB, "10:30")),
			"known-train", "#/tripSpecifications[0]/legs[0]/timedLeg/service/vehicleNumbers[0]", "the timetable has no train 9571"},
		{"not where the train before ends", journeySpec(journeyLeg("9571", parisEst, "07:00", strasbourg, "08:50"), journeyLeg("96003", parisEst, "09:10", baselSBB, "10:30")),
			"journeys", "#/tripSpecifications[0]/legs[1]/timedLeg/start/stopPlaceRef", "not where the leg before ends"},
	} {
		status, _, b := lc.post(t, "/offers", tc.body, osdmspec.V310)
		var p osdm.Problem
		_ = json.Unmarshal(b, &p)
		if status != 422 || !strings.HasSuffix(p.Type, ":"+tc.slug) || len(p.Pointers) == 0 || p.Pointers[0].RequestPointer != tc.pointer || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%s: %d %s", tc.name, status, b)
		}
	}
	if n := len(lc.ls.requests()); n != 0 {
		t.Errorf("%d legacy messages for refused specifications", n)
	}
}

// A train of a journey that another reservation system sells (a legacy
// ReplacementProposal) drops the journey from the answer; the problems
// carry the proposal for that train (OSDM 3.10).
func TestOSDMLegacyJourneySearchAlternativeSystem(t *testing.T) {
	lc := startJourneyChain(t, true, "", legacysandbox.Config{Foreign: []legacysandbox.Foreign{{Train: "96003", System: 80, Operator: "1080"}}})
	resp := searchJourneys(t, lc, journeySearch("06:30"))
	if got := strings.Join(journeyTrains(&resp), " "); got != "9573+96005 9575+96007" {
		t.Errorf("journeys %s, want those without 96003", got)
	}
	asp := 0
	for _, p := range resp.Problems {
		if p.IsAlternativeSystemProposal() {
			asp++
			if len(p.AlternativeSystemProposals) != 1 || p.AlternativeSystemProposals[0].SystemOperatorCode != "urn:uic:rics:1080" ||
				p.AlternativeSystemProposals[0].Scope[0].VehicleNumber != "96003" {
				t.Errorf("proposal %+v", p)
			}
		}
	}
	if asp != 1 || len(resp.Offers) != 2 {
		t.Errorf("%d proposals, %d offers; want 1, 2", asp, len(resp.Offers))
	}
}

// A journey is offered only when every train has places: with 96005 sold
// out since, the journey through it is not offered, the others are, and
// the problems say which train had none.
func TestOSDMLegacyJourneySearchFullTrain(t *testing.T) {
	lc := startJourneyChain(t, true, "", legacysandbox.Config{Capacity: 3})
	rep := lc.ls.sb.Handle(t.Context(), &legacy.BookingRequest{Header: legacy.Header{MessageID: "other-sale"},
		Journey: legacy.Journey{TrainNumber: "96005", DepartureDate: harness.TravelDay, DepartureTime: "10:10", From: strasbourg, To: baselSBB},
		Places:  legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 2}}}})
	if _, ok := rep.(*legacy.BookingReply); !ok {
		t.Fatalf("the other sale: %+v", rep)
	}
	resp := searchJourneys(t, lc, journeySearch("06:30"))
	if got := strings.Join(journeyTrains(&resp), " "); got != "9571+96003 9575+96007" {
		t.Errorf("journeys %s, want those with places on every train", got)
	}
	told := false
	for _, p := range resp.Problems {
		told = told || p.Code == osdm.CodeInsufficientAvailability && strings.Contains(p.Detail, "train 96005")
	}
	if !told || len(resp.Offers) != 2 {
		t.Errorf("problems %+v, %d offers", resp.Problems, len(resp.Offers))
	}
}
