package converter

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// OfferSearch selects how a partner is searched for offers.
type OfferSearch string

// The offer search forms a partner may speak.
const (
	// OfferSearchOffers is POST /offers with a JSON OfferCollectionRequest
	// (OSDM 3.x, the default).
	OfferSearchOffers OfferSearch = "offers"
	// OfferSearchTripOffers is GET /trip-offers with the search criteria
	// as query parameters (older partners).
	OfferSearchTripOffers OfferSearch = "trip-offers"
)

// PassengerTariff is what a legacy tariff code stands for in OSDM.
type PassengerTariff struct {
	// Type is the OSDM passenger type, e.g. ADULT.
	Type osdm.PassengerType
	// Age is the age in years sent with it.
	Age int
}

// Config is one partner route's conversion settings. The zero value plus
// Partner is usable: New fills in the defaults of legacy-protocol.md.
type Config struct {
	// Partner names the partner railway in logs, metrics and reply texts.
	Partner string
	// OfferSearch is OfferSearchOffers (default) or OfferSearchTripOffers.
	OfferSearch OfferSearch
	// Tariffs maps a legacy tariff code to an OSDM passenger; nil means
	// DefaultTariffs. A code not in the table is an INVALID_MESSAGE.
	Tariffs map[int]PassengerTariff
	// Reasons maps a legacy cancel reason code to an OSDM overrule code;
	// nil means DefaultReasons. A code not in the table is an
	// INVALID_MESSAGE.
	Reasons map[int]osdm.OverruleCode
	// Paths overrides the path template of a step, e.g.
	// {StepRefundOffers: "/bookings/{bookingId}/refundOffers"}.
	Paths map[Step]string
	// PathPrefix goes before every step's path template, default or
	// overridden: "/osdm" for a partner whose OSDM API lives under /osdm.
	// "" (the default) adds nothing.
	PathPrefix string
	// Location is the time zone a legacy DepartureTime is read in when no
	// station-country zone is known; nil means Europe/Paris (CET/CEST).
	Location *time.Location
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxDocument is the largest ticket document a TicketReply carries,
	// in bytes; a larger one is refused with DOCUMENT_TOO_LARGE, never
	// cut. 0 means DefaultMaxDocument; at most MaxMaxDocument.
	MaxDocument int64
}

// Bounds of Config.MaxDocument.
const (
	// DefaultMaxDocument is 4 MiB, above the 3 MB that OSDM lets a
	// document carry in its content.
	DefaultMaxDocument = 4 << 20
	// MaxMaxDocument is 32 MiB: several documents that large in one
	// reply are what a legacy client reads at most (legacy.MaxReplyBytes).
	MaxMaxDocument = 32 << 20
)

// DefaultTariffs is the tariff table of legacy-protocol.md.
func DefaultTariffs() map[int]PassengerTariff {
	return map[int]PassengerTariff{
		1: {Type: osdm.PassengerAdult, Age: 30},
		2: {Type: osdm.PassengerChild, Age: 8},
		3: {Type: osdm.PassengerSenior, Age: 65},
		4: {Type: osdm.PassengerYouth, Age: 16},
	}
}

// DefaultReasons is the reason table of legacy-protocol.md.
func DefaultReasons() map[int]osdm.OverruleCode {
	return map[int]osdm.OverruleCode{
		1: osdm.OverruleTechnicalFailure,
		2: osdm.OverruleSalesStaffError,
		3: osdm.OverruleDisruption,
		4: osdm.OverruleConnectionBroken,
		5: osdm.OverruleStrike,
	}
}
