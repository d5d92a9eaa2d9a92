package legacyprovider

import (
	"strings"
	"testing"
	"time"
)

// TestOSDMLegacyNamesAndBirthDatesRefused: through a real Caddy, a
// passenger PATCH whose names are only white space, or hold a
// right-to-left override (U+202E), is refused with a problem pointing at
// the name and nothing reaches the legacy system, which keeps the names it
// had; a booking with such a name is refused too. A date of birth 151
// years back is refused as an age over 150, in a search and in a PATCH,
// not as "after the travel date".
func TestOSDMLegacyNamesAndBirthDatesRefused(t *testing.T) {
	l := startBKLegacy(t)
	c := serveBK(t, l, "")
	b, _ := c.bookFulfilled("708")
	names := func() string {
		var out []string
		for _, hb := range l.held() {
			for _, nm := range hb.Names {
				out = append(out, nm.FirstName+" "+nm.LastName)
			}
		}
		return strings.Join(out, ",")
	}
	want := names()
	n := len(l.messages())
	for _, tc := range []struct{ name, detail, pointer, says string }{
		{"white space", `{"firstName": "   ", "lastName": "\t "}`, "#/detail/firstName", "white space"},
		{"white space last name", `{"lastName": "  "}`, "#/detail/lastName", "white space"},
		{"right-to-left override", `{"firstName": "Ada", "lastName": "Love\u202Ecalev"}`, "#/detail/lastName", "U+202E"},
		{"left-to-right isolate", `{"firstName": "\u2066Ada", "lastName": "King"}`, "#/detail/firstName", "U+2066"},
	} {
		p := c.problem("PATCH", "/bookings/"+b.ID+"/passengers/p1", `{"id": "p1", "externalRef": "p1", "type": "ADULT", "detail": `+tc.detail+`}`, 400)
		if pointerOf(p) != tc.pointer || !strings.Contains(p.Detail, tc.says) {
			t.Errorf("%s: %+v", tc.name, p)
		}
	}
	if len(l.messages()) != n || names() != want {
		t.Errorf("refused PATCHes sent %d messages; the legacy system holds %q, had %q", len(l.messages())-n, names(), want)
	}
	var gp struct {
		Passenger struct {
			Detail struct{ FirstName, LastName string } `json:"detail"`
		} `json:"passenger"`
	}
	c.ok("GET", "/bookings/"+b.ID+"/passengers/p1", "", "", 200, &gp)
	if gp.Passenger.Detail.FirstName != "Ada" || gp.Passenger.Detail.LastName != "Lovelace" {
		t.Errorf("the booking's passenger after refused PATCHes: %+v", gp.Passenger.Detail)
	}

	// A booking with an override in a name.
	body := strings.Replace(bookingOf(c.offer("709").OfferID), `"lastName": "Lovelace"`, `"lastName": "Love\u202Ecalev"`, 1)
	if p := c.problem("POST", "/bookings", body, 400); !strings.Contains(p.Detail, "U+202E") {
		t.Errorf("a booking with U+202E: %+v", p)
	}

	// 151 years back: an age over 150.
	old := time.Now().AddDate(-151, 0, 0).Format(time.DateOnly)
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly) + "T00:00:00+01:00"
	p := c.problem("POST", "/offers", legacySearch("708", day, `{"externalRef": "p1", "type": "ADULT", "dateOfBirth": "`+old+`"}`), 400)
	if !strings.Contains(p.Detail, "age of 151") || strings.Contains(p.Detail, "after") {
		t.Errorf("a search for someone born %s: %+v", old, p)
	}
	p = c.problem("PATCH", "/bookings/"+b.ID+"/passengers/p1", `{"id": "p1", "externalRef": "p1", "type": "ADULT", "dateOfBirth": "`+old+`"}`, 400)
	if !strings.Contains(p.Detail, "age of 151") || strings.Contains(p.Detail, "after") {
		t.Errorf("a PATCH to someone born %s: %+v", old, p)
	}
}
