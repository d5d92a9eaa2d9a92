package osdmlegacy

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestSaleWindow: at 2026-11-30 13:00 in Paris, with a booking horizon of
// 10 days, a search for the day before, or for a day after 2026-12-10, is
// refused (422, pointing at the time asked, saying which) and sends
// nothing; today and the horizon's last day are searched.
func TestSaleWindow(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{BookingHorizon: 10 * 24 * time.Hour}, legacysandbox.Config{}, nil)
	at := func(day string) string {
		return strings.Replace(namedTrainSearch, `"2026-12-01T06:00:00+01:00"`, `"`+day+`T06:00:00+01:00"`, 1)
	}
	for _, tc := range []struct{ day, want string }{
		{"2026-11-29", "the departure on 2026-11-29 is past (today is 2026-11-30 at origin 8727100, time zone Europe/Paris)"},
		{"0000-01-01", "is past"},
		{"2026-12-11", "beyond the booking horizon of 10 days: trains are sold up to 2026-12-10"},
		{"9999-12-31", "beyond the booking horizon"},
	} {
		sent := ss.sent.Load()
		a := search(f, ss.sender(), at(tc.day))
		p := validProblem(t, a)
		if a.Status != http.StatusUnprocessableEntity || p.Code != osdm.CodeOfferOutOfBounds || !strings.Contains(p.Detail, tc.want) ||
			len(p.Pointers) != 1 || p.Pointers[0].RequestPointer != "#/tripSearchCriteria/departureTime" {
			t.Errorf("%s: %d %s", tc.day, a.Status, a.Body)
		}
		if n := ss.sent.Load() - sent; n != 0 {
			t.Errorf("%s: %d legacy messages sent", tc.day, n)
		}
	}
	for _, day := range []string{"2026-11-30", "2026-12-10"} {
		if resp := validOffers(t, search(f, ss.sender(), at(day))); len(resp.Offers) == 0 {
			t.Errorf("%s: no offers", day)
		}
	}
}
