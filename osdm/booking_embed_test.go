package osdm

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

// TestCheckBookingEmbed: every value the spec lists for the embed of GET
// /bookings/{bookingId} is taken, alone, repeated or comma separated;
// another is a 400 INVALID_REQUEST that names it and lists the values.
func TestCheckBookingEmbed(t *testing.T) {
	for _, e := range BookingEmbeds {
		osdmspec.ValidateRequest(t, osdmspec.V39, http.MethodGet, "/bookings/bk-1?embed="+e, http.Header{}, nil)
		if p := CheckBookingEmbed(url.Values{"embed": {e}}); p != nil {
			t.Errorf("embed %s: %v", e, p)
		}
	}
	for _, q := range []string{"", "embed=ALL&embed=NONE", "embed=BOOKING_TRIPS,BOOKING_PASSENGERS"} {
		v, _ := url.ParseQuery(q)
		if p := CheckBookingEmbed(v); p != nil {
			t.Errorf("%q: %v", q, p)
		}
	}
	for q, bad := range map[string]string{
		"embed=NOPE":                       "NOPE",
		"embed=ALL&embed=TRIPS":            "TRIPS",
		"embed=BOOKING,all":                "all",
		"embed=":                           "",
		"embed=" + strings.Repeat("X", 60): strings.Repeat("X", 40) + "...",
	} {
		v, _ := url.ParseQuery(q)
		p := CheckBookingEmbed(v)
		if p == nil || p.Status != http.StatusBadRequest || p.Code != CodeInvalidRequest ||
			!strings.HasPrefix(p.Detail, `embed "`+bad+`" is not one of ALL, BOOKING, BOOKING_PASSENGERS,`) {
			t.Errorf("%q: %+v", q, p)
		}
	}
}
