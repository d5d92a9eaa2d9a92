package osdmlegacy

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestBookingBodyStrictness: the bodies of state-changing calls are read
// as strictly as the offer search: a repeated member, a member name in
// another case, invalid UTF-8 or a mistyped member is refused with a
// pointer, and nothing is sent to the legacy system.
func TestBookingBodyStrictness(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203")
	raw, err := json.Marshal(bookingBodyOf(o))
	if err != nil {
		t.Fatal(err)
	}
	good := string(raw)
	refs := bookingBodyOf(o)["offers"].([]any)[0].(map[string]any)["passengerRefs"]
	ref, _ := json.Marshal(refs)
	age := regexp.MustCompile(`"age":[0-9]+`)
	for _, tc := range []struct {
		name, body, pointer, detail string
	}{
		{"repeated member", strings.Replace(good, `{"offers":`, `{"offers":[],"offers":`, 1), "#/offers", "twice"},
		{"name in another case", strings.Replace(good, `"offerId"`, `"OfferId"`, 1), "", "offer"},
		{"invalid UTF-8", strings.Replace(good, `"offerId"`, "\"offerId\xff\"", 1), "", "not a JSON object"},
		{"mistyped member", strings.Replace(good, `"passengerRefs":`+string(ref), `"passengerRefs":"p1"`, 1), "#/offers/0/passengerRefs", "must be a JSON array, not string"},
		{"second value", good + `{}`, "", "not a JSON object"},
		{"fractional age", age.ReplaceAllString(good, `"age":30.5`), "#/passengerSpecifications/0/age", "must be a whole number within range"},
		{"age out of range", age.ReplaceAllString(good, `"age":1e30`), "#/passengerSpecifications/0/age", "must be a whole number within range"},
		{"null body", " null", "", "the body must be a JSON object, not null"},
		{"null offer", strings.Replace(good, `{"offers":[`, `{"offers":[null,`, 1), "#/offers/0", "must not be null"},
		{"null passengerRef", strings.Replace(good, `"passengerRefs":[`, `"passengerRefs":[null,`, 1), "#/offers/0/passengerRefs/0", "must not be null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.legacy.delivered())
			a := e.call(e.f, "POST", "/bookings", tc.body)
			p := decodeProblem(t, a)
			if a.Status/100 != 4 || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("%d %+v, want a 4xx saying %q", a.Status, p, tc.detail)
			}
			if tc.pointer != "" && (len(p.Pointers) == 0 || p.Pointers[0].RequestPointer != tc.pointer) {
				t.Errorf("pointers %+v, want %s", p.Pointers, tc.pointer)
			}
			if n := len(e.legacy.delivered()); n != before {
				t.Errorf("%d legacy messages sent for a refused body", n-before)
			}
		})
	}
	// The well-formed body books.
	if a := e.call(e.f, "POST", "/bookings", good); a.Status != 200 {
		t.Fatalf("good body: %d %s", a.Status, a.Body)
	}
}
