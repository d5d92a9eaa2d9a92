package osdmsandbox

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// maxNameRunes bounds a first or last name.
const maxNameRunes = 100

// e164 is the form of a phone number the spec asks for.
var e164 = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// passengerPatch is the body of PATCH /bookings/{bookingId}/passengers/{passengerId}
// as the sandbox reads it: a Passenger, of which it changes the name, date
// of birth, age and contact; other members are answered as ignored.
type passengerPatch struct {
	ID          string          `json:"id"`
	ExternalRef string          `json:"externalRef"`
	Type        string          `json:"type"`
	Age         *int            `json:"age"`
	DateOfBirth *string         `json:"dateOfBirth"`
	Detail      json.RawMessage `json:"detail"`
}

// personPatch is the detail of a passengerPatch.
type personPatch struct {
	FirstName *string             `json:"firstName"`
	LastName  *string             `json:"lastName"`
	Contact   *osdm.ContactDetail `json:"contact"`
}

// Members of a Passenger and of its detail the sandbox reads; the others
// (cards, gender, postalAddress...) are valid OSDM it does not keep.
var (
	passengerMembers = map[string]bool{"id": true, "externalRef": true, "type": true, "age": true,
		"dateOfBirth": true, "detail": true, "summary": true, "_links": true}
	detailMembers = map[string]bool{"firstName": true, "lastName": true, "contact": true, "summary": true}
)

// passengerOf finds passenger id of booking b.
func (b *booking) passengerOf(id string) *osdm.Passenger {
	for i := range b.passengers {
		if b.passengers[i].ID == id {
			return &b.passengers[i]
		}
	}
	return nil
}

// passengerDesk answers and changes a booking's passengers.
type passengerDesk struct {
	led *ledger
}

// livePassenger finds the booking and passenger of rq.
func (pd *passengerDesk) livePassenger(now time.Time, rq *request) (*booking, *osdm.Passenger, *osdm.ProblemError) {
	b, p := pd.led.liveBooking(now, rq)
	if p != nil {
		return nil, nil, p
	}
	pax := b.passengerOf(rq.passengerID)
	if pax == nil {
		ids := make([]string, len(b.passengers))
		for i, p := range b.passengers {
			ids[i] = p.ID
		}
		return nil, nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound,
			"booking "+b.id+" has no passenger "+quoteShort(rq.passengerID)+"; its passengers are "+strings.Join(ids, ", "))
	}
	return b, pax, nil
}

// getPassenger serves GET /bookings/{bookingId}/passengers/{passengerId}.
func (pd *passengerDesk) getPassenger(now time.Time, rq *request) *response {
	_, pax, p := pd.livePassenger(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	return jsonResponse(http.StatusOK, &osdm.PassengerResponse{Passenger: ptr(*pax)})
}

// patchPassenger serves PATCH /bookings/{bookingId}/passengers/{passengerId}:
// before fulfilment, the passenger's name, date of birth, age and contact
// change to those sent (a member left out stays); id, externalRef and
// type cannot change. Members the sandbox does not keep are named in the
// answer's problems as ignored.
func (pd *passengerDesk) patchPassenger(now time.Time, rq *request) *response {
	var members map[string]json.RawMessage
	if p := decode(rq.body, &members, false); p != nil {
		return problemResponse(p)
	}
	var patch passengerPatch
	if p := decode(rq.body, &patch, false); p != nil {
		return problemResponse(p)
	}
	b, pax, p := pd.livePassenger(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	travel := b.firstDeparture()
	switch b.state {
	case stateFulfilled:
		if !now.Before(travel) {
			return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeModificationNotAllowed,
				"booking "+b.id+" departed at "+travel.Format(time.RFC3339)+"; its passengers can be changed only before departure"))
		}
	case stateReleased, stateRefunded:
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled,
			"booking "+b.id+" is "+strings.ToLower(b.state.String())+"; its passengers can no longer be changed"))
	}
	updated := *pax
	if p := applyPassengerPatch(&updated, &patch, now, travel); p != nil {
		return problemResponse(p)
	}
	var person map[string]json.RawMessage
	if len(patch.Detail) > 0 && string(patch.Detail) != "null" {
		_ = decodeAt("/detail", patch.Detail, &person) // an object: applyPassengerPatch read it
	}
	*pax = updated
	out := &osdm.PassengerResponse{Passenger: ptr(updated)}
	for _, ignored := range ignoredMembers(members, passengerMembers, "#/") {
		out.Problems = append(out.Problems, ignoredProblem(ignored))
	}
	for _, ignored := range ignoredMembers(person, detailMembers, "#/detail/") {
		out.Problems = append(out.Problems, ignoredProblem(ignored))
	}
	return jsonResponse(http.StatusOK, out)
}

// applyPassengerPatch checks patch and applies it to pax, who travels
// at travel.
func applyPassengerPatch(pax *osdm.Passenger, patch *passengerPatch, now, travel time.Time) *osdm.ProblemError {
	switch {
	case patch.ID != "" && patch.ID != pax.ID:
		return osdm.Invalid(osdm.CodeValidationError, "#/id", "id "+strconv.Quote(patch.ID)+" is not the passenger of the path, "+pax.ID)
	case patch.ExternalRef != "" && patch.ExternalRef != pax.ExternalRef:
		return osdm.NewProblem(http.StatusBadRequest, osdm.CodeReadOnlyProperty, "externalRef is "+strconv.Quote(pax.ExternalRef)+" and cannot change").WithPointer("#/externalRef")
	case patch.Type != "" && osdm.PassengerType(patch.Type) != pax.Type:
		return osdm.NewProblem(http.StatusBadRequest, osdm.CodeReadOnlyProperty, "type is "+string(pax.Type)+" and cannot change (it priced the booking); book again for another passenger type").WithPointer("#/type")
	}
	if patch.Age != nil {
		if *patch.Age < 0 || *patch.Age > 150 {
			return osdm.Invalid(osdm.CodeValidationError, "#/age", "age must be 0..150")
		}
		pax.Age = ptr(*patch.Age)
	}
	if patch.DateOfBirth != nil {
		d, err := time.Parse(time.DateOnly, *patch.DateOfBirth)
		switch {
		case err != nil:
			return osdm.Invalid(osdm.CodeValidationError, "#/dateOfBirth", "dateOfBirth "+strconv.Quote(*patch.DateOfBirth)+" must be a date YYYY-MM-DD")
		case d.After(now) || d.Year() < 1870:
			return osdm.Invalid(osdm.CodeValidationError, "#/dateOfBirth", "dateOfBirth "+*patch.DateOfBirth+" is not the birth date of a living passenger")
		}
		if lo, hi, ok := ageRange(pax.Type); ok {
			if age := ageOn(d, travel); age < lo || age > hi {
				limit := strconv.Itoa(lo) + ".." + strconv.Itoa(hi)
				if hi >= maxAge {
					limit = strconv.Itoa(lo) + " or more"
				}
				return osdm.NewProblem(http.StatusConflict, osdm.CodeModificationNotAllowed, "dateOfBirth "+*patch.DateOfBirth+" makes passenger "+pax.ID+" "+strconv.Itoa(age)+
					" on the day of travel, outside the ages of "+string(pax.Type)+" ("+limit+") that priced the booking; book again for the other passenger type").WithPointer("#/dateOfBirth")
			}
		}
		pax.DateOfBirth = *patch.DateOfBirth
	}
	if len(patch.Detail) == 0 || string(patch.Detail) == "null" {
		return nil
	}
	var person personPatch
	if p := decodeAt("/detail", patch.Detail, &person); p != nil {
		return p
	}
	detail := osdm.PersonDetail{}
	if pax.Detail != nil {
		detail = *pax.Detail
		if detail.Contact != nil {
			detail.Contact = ptr(*detail.Contact)
		}
	}
	for _, name := range []struct {
		at    string
		value *string
		dst   *string
	}{{"#/detail/firstName", person.FirstName, &detail.FirstName}, {"#/detail/lastName", person.LastName, &detail.LastName}} {
		if name.value == nil {
			// The spec requires both names in a PersonDetail.
			return osdm.Invalid(osdm.CodeValidationError, name.at, name.at[len("#/detail/"):]+" is required in a detail (the spec requires firstName and lastName)")
		}
		if p := checkName(name.at, *name.value); p != nil {
			return p
		}
		*name.dst = strings.TrimSpace(*name.value)
	}
	if c := person.Contact; c != nil {
		if c.Email == "" && c.PhoneNumber == "" {
			return osdm.Invalid(osdm.CodeValidationError, "#/detail/contact", "a contact needs an email or a phoneNumber")
		}
		if c.Email != "" && !validEmail(c.Email) {
			return osdm.Invalid(osdm.CodeValidationError, "#/detail/contact/email", "email "+strconv.Quote(c.Email)+" is not an email address")
		}
		if c.PhoneNumber != "" && !e164.MatchString(c.PhoneNumber) {
			return osdm.Invalid(osdm.CodeValidationError, "#/detail/contact/phoneNumber", "phoneNumber "+strconv.Quote(c.PhoneNumber)+" must be in E.164 form, e.g. +41791234567")
		}
		detail.Contact = &osdm.ContactDetail{Email: c.Email, PhoneNumber: c.PhoneNumber}
	}
	pax.Detail = &detail
	return nil
}

// maxAge is the upper end of an open age range.
const maxAge = 150

// ageRange is the ages a passenger type covers, as the sandbox prices
// them; ok is false for types without an age range.
func ageRange(t osdm.PassengerType) (lo, hi int, ok bool) {
	switch t {
	case osdm.PassengerYoungChild:
		return 0, 5, true
	case osdm.PassengerChild, osdm.PassengerFamilyChild:
		return 6, 14, true
	case osdm.PassengerYouth:
		return 12, 25, true
	case osdm.PassengerAdult:
		return 15, maxAge, true
	case osdm.PassengerSenior:
		return 60, maxAge, true
	}
	return 0, 0, false
}

// ageOn is the age in whole years on day at of someone born on born.
func ageOn(born, at time.Time) int {
	age := at.Year() - born.Year()
	if at.Month() < born.Month() || at.Month() == born.Month() && at.Day() < born.Day() {
		age--
	}
	return age
}

// firstDeparture is when the booking's first train leaves.
func (b *booking) firstDeparture() time.Time {
	var first time.Time
	for _, p := range b.parts {
		if p.exchanged {
			continue
		}
		if first.IsZero() || p.journey.departure.Before(first) {
			first = p.journey.departure
		}
	}
	return first
}

// checkName checks a first or last name: 1..maxNameRunes printable characters.
func checkName(at, name string) *osdm.ProblemError {
	trimmed := strings.TrimSpace(name)
	switch {
	case trimmed == "":
		return osdm.Invalid(osdm.CodeValidationError, at, "the name must not be empty")
	case !utf8.ValidString(name) || utf8.RuneCountInString(trimmed) > maxNameRunes:
		return osdm.Invalid(osdm.CodeValidationError, at, "the name must be valid UTF-8 of at most "+strconv.Itoa(maxNameRunes)+" characters")
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return osdm.Invalid(osdm.CodeValidationError, at, "the name must not hold control characters")
	}
	return nil
}

// validEmail is a plain check of an email address: one @ with text on both
// sides, a dot in the domain, no spaces, at most 254 bytes.
func validEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && len(s) <= 254 && strings.Contains(domain, ".") &&
		!strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".") &&
		!strings.ContainsAny(s, " \t\r\n<>\"") && !strings.Contains(domain, "@")
}

// ignoredMembers lists, sorted, the members of obj not in known, as JSON
// pointers under prefix.
func ignoredMembers(obj map[string]json.RawMessage, known map[string]bool, prefix string) []string {
	var out []string
	for name := range obj {
		if !known[name] && name != osdm.MemberObjectType {
			out = append(out, prefix+name)
		}
	}
	sort.Strings(out)
	return out
}

// ignoredProblem says that a member of the request was not kept.
func ignoredProblem(pointer string) osdm.Problem {
	p := osdm.Fail(osdm.CodeParameterNotSupported, pointer[2:]+" is not kept by the sandbox and was ignored").WithPointer(pointer)
	return p.Inline()
}
