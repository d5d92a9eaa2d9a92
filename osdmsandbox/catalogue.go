package osdmsandbox

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// currency of every sandbox price.
const currency = "EUR"

// The sandbox sells refundable reservations with a fee and no exchange.
const (
	flexibility  = osdm.FlexibilitySemi
	refundable   = osdm.RefundWithCondition
	exchangeable = osdm.RefundNo
	// refundFeePercent is kept of a refund without an overrule code.
	refundFeePercent = 10
)

// fulfillmentOptions are the ticket kinds offered.
var fulfillmentOptions = []osdm.FulfillmentOption{
	{Type: osdm.FulfillmentETicket, Media: osdm.FulfillmentMediaPDFA4},
	{Type: osdm.FulfillmentETicket, Media: osdm.FulfillmentMediaTicketless},
}

// adultPrice is the reservation price for an adult, in cents, per group.
func adultPrice(g group) int64 {
	var second, first int64
	switch g.acc {
	case osdm.AccommodationCouchette:
		second, first = 2900, 3900
	case osdm.AccommodationBerth:
		second, first = 5900, 8900
	default:
		second, first = 500, 900
	}
	if g.class == osdm.TravelClassFirst {
		return first
	}
	return second
}

// pricePercent is the share of the adult price a passenger type pays.
func pricePercent(t osdm.PassengerType) int64 {
	switch t {
	case osdm.PassengerYoungChild:
		return 0
	case osdm.PassengerChild, osdm.PassengerFamilyChild, osdm.PassengerDog:
		return 50
	case osdm.PassengerYouth:
		return 75
	case osdm.PassengerSenior:
		return 80
	}
	return 100
}

// passengerPrice is what passenger p pays for a place of group g on a
// train leaving at departure.
func passengerPrice(g group, p osdm.AnonymousPassengerSpecification, departure time.Time) int64 {
	return adultPrice(g) * pricePercent(fareType(p, departure)) / 100
}

// fareType is the type a passenger pays as: its own, or for a PERSON (the
// type OSDM 3 consumers send with an age or date of birth) the type of its
// age on the travel day: young child under 6, child under 16, youth under
// 26, senior from 60, adult otherwise (and without an age).
func fareType(p osdm.AnonymousPassengerSpecification, departure time.Time) osdm.PassengerType {
	if p.Type != osdm.PassengerPerson {
		return p.Type
	}
	age := -1
	if p.Age != nil {
		age = *p.Age
	} else if dob, err := time.Parse(time.DateOnly, p.DateOfBirth); err == nil {
		y, m, d := departure.Date()
		age = y - dob.Year()
		if m < dob.Month() || m == dob.Month() && d < dob.Day() {
			age--
		}
	}
	switch {
	case age < 0:
		return osdm.PassengerAdult
	case age < 6:
		return osdm.PassengerYoungChild
	case age < 16:
		return osdm.PassengerChild
	case age < 26:
		return osdm.PassengerYouth
	case age >= 60:
		return osdm.PassengerSenior
	}
	return osdm.PassengerAdult
}

// price returns an EUR amount in cents as an OSDM Price.
func price(cents int64) osdm.Price {
	return osdm.NewPrice(cents, osdm.DefaultScale, currency)
}

// serviceClass is the comfort level of a group.
func serviceClass(g group) osdm.ServiceClass {
	first := g.class == osdm.TravelClassFirst
	switch g.acc {
	case osdm.AccommodationCouchette:
		if first {
			return osdm.ServiceClass{Type: osdm.ServiceClassHigh, Name: "Couchette 4"}
		}
		return osdm.ServiceClass{Type: osdm.ServiceClassStandard, Name: "Couchette 6"}
	case osdm.AccommodationBerth:
		if first {
			return osdm.ServiceClass{Type: osdm.ServiceClassBest, Name: "Sleeper single"}
		}
		return osdm.ServiceClass{Type: osdm.ServiceClassHigh, Name: "Sleeper T3"}
	}
	if first {
		return osdm.ServiceClass{Type: osdm.ServiceClassHigh, Name: "First"}
	}
	return osdm.ServiceClass{Type: osdm.ServiceClassStandard, Name: "Standard"}
}

// subType is the accommodation sub type of a group.
func subType(g group) osdm.AccommodationSubType {
	switch {
	case g.acc == osdm.AccommodationCouchette && g.class == osdm.TravelClassFirst:
		return "COUCHETTE_4"
	case g.acc == osdm.AccommodationCouchette:
		return "COUCHETTE_6"
	case g.acc == osdm.AccommodationBerth && g.class == osdm.TravelClassFirst:
		return "SINGLE"
	case g.acc == osdm.AccommodationBerth:
		return "TOURIST_SLEEPER_3"
	}
	return osdm.AccommodationSubAnySeat
}

// productCode is the product of a group: RES1-SEAT, RES2-BERTH...
func productCode(g group) string {
	class := "2"
	if g.class == osdm.TravelClassFirst {
		class = "1"
	}
	return "RES" + class + "-" + string(g.acc)
}

// product is the OSDM product of a group.
func product(g group, operator string) osdm.Product {
	sc := serviceClass(g)
	return osdm.Product{
		ID:           "prod-" + productCode(g),
		Summary:      "Seat reservation, " + sc.Name,
		Code:         productCode(g),
		Owner:        operator,
		Flexibility:  flexibility,
		ServiceClass: &sc,
		TravelClass:  g.class,
	}
}

// refundFee is what the sandbox keeps of amount: nothing with an overrule
// code, refundFeePercent (rounded to the cent) otherwise.
func refundFee(amount int64, overrule osdm.OverruleCode) int64 {
	if overrule != "" {
		return 0
	}
	return (amount*refundFeePercent + 50) / 100
}
