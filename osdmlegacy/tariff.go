package osdmlegacy

import (
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// ageOn is legacy.AgeOn, and false as well for an age no passenger can
// have (over 150).
func ageOn(dob string, day time.Time) (int, bool) {
	age, ok := legacy.AgeOn(dob, day)
	return age, ok && age <= 150
}

// birthDateFault says why a date of birth giving age on the travel day
// (serviceDate, "" when not to be named) is refused: after it, or an age
// over 150.
func birthDateFault(age int, serviceDate string) string {
	on := "the travel date"
	if serviceDate != "" {
		on += " " + serviceDate
	}
	switch {
	case age < 0:
		return "the date of birth is after " + on
	case age <= 150:
		return "the date of birth is not a date (YYYY-MM-DD)"
	}
	return "the date of birth gives an age of " + strconv.Itoa(age) + " on " + on + ": at most 150"
}

// tariffOf maps a passenger to its legacy tariff (restriction 5): the
// first rule of its type whose age range holds its age (given, or from its
// date of birth on travel day). Without an age, the type's rules must all
// give one code.
func (o *offers) tariffOf(pa passengerArg, travel time.Time) (offerPassenger, *osdm.ProblemError) {
	out := offerPassenger{Ref: pa.ref, Type: pa.typ, DateOfBirth: pa.dob}
	age := pa.age
	agePtr := pa.ptr + "/age"
	if age == nil && pa.dob != "" {
		a, ok := ageOn(pa.dob, travel)
		if !ok {
			return out, osdm.Invalid(osdm.CodeOfferInvalid, pa.ptr+"/dateOfBirth", birthDateFault(a, ""))
		}
		age, agePtr = &a, pa.ptr+"/dateOfBirth"
	}
	out.Age = age
	var ofType []TariffRule
	for _, t := range o.cfg.Tariffs {
		if t.Type == pa.typ {
			ofType = append(ofType, t)
		}
	}
	if len(ofType) == 0 {
		return out, restricted(RestrictPassengers, osdm.CodeOfferOutOfBounds, pa.tPtr,
			"passenger type "+strconv.Quote(shorten(string(pa.typ), 32))+" has no legacy tariff")
	}
	if age == nil {
		for _, t := range ofType[1:] {
			if t.Code != ofType[0].Code {
				return out, restricted(RestrictPassengers, osdm.CodeOfferOutOfBounds, pa.ptr,
					"the legacy tariff of a "+string(pa.typ)+" depends on the age: give age or dateOfBirth")
			}
		}
		out.Tariff = ofType[0].Code
		return out, nil
	}
	for _, t := range ofType {
		if *age >= t.MinAge && *age <= t.MaxAge {
			out.Tariff = t.Code
			return out, nil
		}
	}
	return out, restricted(RestrictPassengers, osdm.CodeOfferOutOfBounds, agePtr,
		"no legacy tariff for a "+string(pa.typ)+" aged "+strconv.Itoa(*age))
}

// passengerSpec is the search's passenger as the answer echoes it.
func (p offerPassenger) spec() osdm.AnonymousPassengerSpecification {
	return osdm.AnonymousPassengerSpecification{ExternalRef: p.Ref, Type: p.Type, Age: p.Age, DateOfBirth: p.DateOfBirth}
}

// birthDateFits refuses a date of birth (YYYY-MM-DD, "" for none) that
// puts passenger op of an offer for serviceDate outside the age range of
// the tariff the offer was priced at (restriction 5): the age on travel
// day must select, among rules, the same legacy tariff. A booking or a
// later change cannot turn a senior's fare into an adult's booking. at
// points at the passenger in the request.
func birthDateFits(at, dob string, op offerPassenger, serviceDate string, rules []TariffRule) *osdm.ProblemError {
	if dob == "" {
		return nil
	}
	day, err := time.Parse(time.DateOnly, serviceDate)
	if err != nil {
		return nil // not a date the façade made: nothing to hold it to
	}
	age, ok := ageOn(dob, day)
	if !ok {
		return osdm.Invalid(osdm.CodeInvalidRequest, at+"/dateOfBirth", birthDateFault(age, serviceDate))
	}
	for _, t := range rules {
		if t.Type == op.Type && age >= t.MinAge && age <= t.MaxAge {
			if t.Code == op.Tariff {
				return nil
			}
			break
		}
	}
	return restricted(RestrictPassengers, osdm.CodeOutOfBounds, at+"/dateOfBirth",
		"born "+dob+", the passenger is "+strconv.Itoa(age)+" on "+serviceDate+
			", outside the age range of the offer's tariff for a "+string(op.Type)+"; search again with this date of birth")
}
