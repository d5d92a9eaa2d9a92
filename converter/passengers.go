package converter

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// traveller is one place asked for: its OSDM externalRef and passenger.
type traveller struct {
	ref    string // p1, p2, ... in the order of the request's tariffs
	tariff PassengerTariff
}

// travellers expands the request's tariffs into one traveller per place,
// numbered p1..pN in the order the tariffs come. The numbering is the same
// for the search and the booking of the same request, so an OfferRef of an
// AvailabilityReply is booked with the passengerRefs it was made for. An
// unknown tariff code is an error naming it.
func (c *Converter) travellers(p legacy.PlaceRequest) ([]traveller, error) {
	out := make([]traveller, 0, p.Places())
	for _, t := range p.Tariffs {
		pt, ok := c.tariffs[t.Code]
		if !ok {
			return nil, fmt.Errorf("tariff code %d is not in the tariff table of route %s (known codes: %s)", t.Code, c.partner, c.knownTariffs())
		}
		for i := 0; i < t.Count; i++ {
			out = append(out, traveller{ref: "p" + strconv.Itoa(len(out)+1), tariff: pt})
		}
	}
	return out, nil
}

func (c *Converter) knownTariffs() string {
	codes := make([]int, 0, len(c.tariffs))
	for code := range c.tariffs {
		codes = append(codes, code)
	}
	return joinInts(codes)
}

func joinInts(codes []int) string {
	sort.Ints(codes)
	s := make([]string, len(codes))
	for i, code := range codes {
		s[i] = strconv.Itoa(code)
	}
	return strings.Join(s, ", ")
}

// anonymous returns the travellers as OSDM search passengers.
func anonymous(ts []traveller) []osdm.AnonymousPassengerSpecification {
	out := make([]osdm.AnonymousPassengerSpecification, len(ts))
	for i, t := range ts {
		age := t.tariff.Age
		out[i] = osdm.AnonymousPassengerSpecification{ExternalRef: t.ref, Type: t.tariff.Type, Age: &age}
	}
	return out
}

// refs returns the travellers' externalRefs.
func refs(ts []traveller) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ref
	}
	return out
}

// specifications returns the travellers as OSDM booking passengers, the
// legacy Passengers named in order on the first places. The spec requires
// both firstName and lastName in a detail, so a passenger without a first
// name is sent with an empty one.
func specifications(ts []traveller, names []legacy.Passenger) []osdm.PassengerSpecification {
	out := make([]osdm.PassengerSpecification, len(ts))
	for i, t := range ts {
		age := t.tariff.Age
		out[i] = osdm.PassengerSpecification{ExternalRef: t.ref, Type: t.tariff.Type, Age: &age}
		if i < len(names) {
			n := names[i]
			out[i].DateOfBirth = n.DateOfBirth
			if n.FirstName != "" || n.LastName != "" {
				out[i].Detail = &osdm.PersonDetail{FirstName: n.FirstName, LastName: n.LastName}
			}
		}
	}
	return out
}
