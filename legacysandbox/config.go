package legacysandbox

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/defaults"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// Defaults of Config.
const (
	// DefaultSystem is the 918-1 reservation system code the sandbox
	// answers as: a placeholder, not a real railway's.
	DefaultSystem = 9999
	// DefaultCapacity is the number of places per train run, class and
	// service code.
	DefaultCapacity = 100
	// DefaultCurrency is the currency of every price.
	DefaultCurrency = "EUR"
	// DefaultCancelFeePercent is the fee of a cancellation without a
	// reason code, in percent of the price.
	DefaultCancelFeePercent = 10
	// DefaultOfferTTL is how long an OfferRef can be booked.
	DefaultOfferTTL = 15 * time.Minute
	// DefaultRetention is how long replies are remembered for resends and
	// how long bookings are kept after their train has left.
	DefaultRetention = 24 * time.Hour
	// DefaultMaxEntries caps the remembered replies and the bookings (each).
	DefaultMaxEntries = 10000
	// DefaultMaxBody is the longest request body read, in bytes.
	DefaultMaxBody = 64 << 10
)

// Limits of Config values, so that one typo cannot exhaust memory.
const (
	MaxCapacity   = 10000
	MaxMaxEntries = 1000000
	MaxLatency    = 5 * time.Minute
)

// Config configures a Sandbox. The zero value is usable: every zero field
// takes its default.
type Config struct {
	// System is the sandbox's own 918-1 reservation system code, 1..9999:
	// its BookingRefs start with it and a Foreign entry may not name it.
	// Default 9999.
	System int
	// Capacity is the number of places per train run (train and service
	// date), travel class and service code. Default 100, at most 10000.
	Capacity int
	// Schedule says which trains run, when, and where they call; nil is
	// Demo().
	Schedule Schedule
	// Tariffs maps each 918-1 tariff code taken to the percentage of the
	// fare it pays; a tariff code not in it is refused with
	// INVALID_MESSAGE. Nil is DefaultTariffs.
	Tariffs map[int]int
	// TariffAges maps a tariff code to the ages (on the day of travel) it
	// is for: a PassengerDataRequest whose date of birth falls outside the
	// booked place's range is refused, as it would move the passenger to
	// another tariff. A code not in it takes any age. Nil is
	// DefaultTariffAges.
	TariffAges map[int]AgeRange
	// Fares overrides fares of DefaultFares, per class and service code.
	Fares []Fare
	// Currency is the ISO 4217 currency of every price. Default EUR.
	// Amounts (Fares, replies) are in its minor unit (legacy.MinorUnit):
	// cents, yen, fils.
	Currency string
	// CancelFeePercent is the fee of a cancellation without a reason code,
	// in percent of the price, 0..100; -1 means none. Default 10.
	CancelFeePercent int
	// Foreign lists the trains sold by another reservation system: a
	// request for one gets a ReplacementProposal.
	Foreign []Foreign
	// Latency is added to every answer (for fan-out and timeout tests).
	// At most 5m.
	Latency time.Duration
	// OfferTTL is how long an OfferRef of an AvailabilityReply can be
	// booked (its ValidUntil). Default 15m.
	OfferTTL time.Duration
	// Retention is how long replies are remembered for resent messageIds,
	// and how long bookings are kept after their train has left (or after
	// they were cancelled). Default 24h.
	Retention time.Duration
	// MaxEntries caps the remembered replies (the oldest go first) and the
	// bookings held (a BookingRequest beyond it is NO_AVAILABILITY).
	// Default 10000.
	MaxEntries int
	// MaxBody is the longest request body read, in bytes, at most
	// legacy.MaxBodyBytes; a longer one is a 413 NegativeReply. Default 64 KiB.
	MaxBody int64
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
}

// DefaultTariffs is the tariff table when Config.Tariffs is nil: the
// tariff codes legacy-protocol.md names (1 adult, 2 child, 3 senior,
// 4 youth) and the percentage of the fare each pays.
var DefaultTariffs = map[int]int{1: 100, 2: 50, 3: 70, 4: 75}

// AgeRange is an inclusive range of ages in whole years.
type AgeRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// DefaultTariffAges are the ages of the default tariff codes, those
// osdm_legacy's default tariff table maps them from (1 adult 18+, 2 child
// 0..17, 3 senior 60+, 4 youth 12..27).
var DefaultTariffAges = map[int]AgeRange{1: {18, 150}, 2: {0, 17}, 3: {60, 150}, 4: {12, 27}}

// Fare is the price of one place at the full tariff (100%), in minor units
// of the currency (cents; yen for JPY, fils for KWD), for a travel class
// and service code.
type Fare struct {
	// TravelClass is 1 or 2.
	TravelClass int `json:"travel_class"`
	// ServiceCode is 1 (seat), 2 (couchette) or 3 (berth).
	ServiceCode int `json:"service_code"`
	// Cents is the price in minor units, e.g. 1290 for 12.90 EUR, 1290
	// for 1290 JPY.
	Cents int64 `json:"cents"`
}

// DefaultFares are the fares not overridden by Config.Fares.
var DefaultFares = []Fare{
	{legacy.FirstClass, legacy.ServiceSeat, 1900},
	{legacy.SecondClass, legacy.ServiceSeat, 1200},
	{legacy.FirstClass, legacy.ServiceCouchette, 4500},
	{legacy.SecondClass, legacy.ServiceCouchette, 2900},
	{legacy.FirstClass, legacy.ServiceBerth, 8900},
	{legacy.SecondClass, legacy.ServiceBerth, 5900},
}

// Foreign says that a train is sold by another reservation system.
type Foreign struct {
	// Train is the train number, 1..5 letters or digits.
	Train string `json:"train"`
	// System is the 918-1 code of the system that sells it, 1..9999.
	System int `json:"system"`
	// Operator is the 4-digit RICS company code of that system's operator.
	Operator string `json:"operator"`
}

// Validate checks the entry as New does.
func (f Foreign) Validate() error {
	if !ValidTrainNumber(f.Train) {
		return fmt.Errorf("foreign: train %q must be 1..5 letters or digits", f.Train)
	}
	if f.System < 1 || f.System > 9999 {
		return fmt.Errorf("foreign %s: reservation system %d must be 1..9999", f.Train, f.System)
	}
	if !ValidRICS(f.Operator) {
		return fmt.Errorf("foreign %s: operator %q must be a 4-digit RICS company code", f.Train, f.Operator)
	}
	return nil
}

// ValidTrainNumber reports whether s is a legacy train number: 1..5
// letters or digits (the Hermes limit), as legacy.ValidTrainNumber.
func ValidTrainNumber(s string) bool { return legacy.ValidTrainNumber(s) }

// ValidRICS reports whether s is a 4-digit RICS company code, as
// legacy.ValidRICS.
func ValidRICS(s string) bool { return legacy.ValidRICS(s) }

// ParseAmount reads a decimal amount such as "12.90" or "12" into minor
// units (two decimals).
func ParseAmount(s string) (int64, error) { return ParseAmountIn(s, 2) }

// ParseAmountIn reads a decimal amount of a currency whose minor unit has
// decimals decimals (legacy.MinorUnit) into minor units: "12.90" with 2
// is 1290, "1200" with 0 is 1200, "12.345" with 3 is 12345. More decimals
// than the currency has is an error.
func ParseAmountIn(s string, decimals int) (int64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" || len(whole) > 9 ||
		dot && (len(frac) < 1 || len(frac) > decimals || strings.Trim(frac, "0123456789") != "") {
		if decimals == 0 {
			return 0, fmt.Errorf("amount %q must be a whole number such as 1200 (the currency has no minor unit)", s)
		}
		return 0, fmt.Errorf("amount %q must be a decimal with at most %d decimals such as %s", s, decimals, formatAmount(1290, decimals))
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	var f int64
	if dot {
		f, _ = strconv.ParseInt(frac, 10, 64)
	}
	for range decimals {
		w *= 10
	}
	for n := len(frac); n < decimals; n++ {
		f *= 10
	}
	return w + f, nil
}

// formatAmount writes an amount in minor units with decimals decimals
// (the currency's, legacy.MinorUnit): 1290 as "12.90", 1290 yen as
// "1290", 12345 fils as "12.345".
func formatAmount(minor int64, decimals int) string {
	if decimals == 0 {
		return strconv.FormatInt(minor, 10)
	}
	unit := int64(1)
	for range decimals {
		unit *= 10
	}
	return strconv.FormatInt(minor/unit, 10) + "." + fmt.Sprintf("%0*d", decimals, minor%unit)
}

// decimals is the number of decimals of the sandbox's currency: its
// amounts are minor units of it.
func (s *Sandbox) decimals() int { return legacy.MinorUnit(s.cfg.Currency) }

// withDefaults checks c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	if c.System == 0 {
		c.System = DefaultSystem
	}
	if c.System < 1 || c.System > 9999 {
		return c, fmt.Errorf("system %d must be a 918-1 reservation system code 1..9999", c.System)
	}
	if err := defaults.Count("capacity", &c.Capacity, DefaultCapacity, MaxCapacity); err != nil {
		return c, err
	}
	if c.Schedule == nil {
		c.Schedule = Demo()
	}
	if c.Tariffs == nil {
		c.Tariffs = DefaultTariffs
	}
	if len(c.Tariffs) == 0 {
		return c, fmt.Errorf("the tariff table is empty")
	}
	tariffs := make(map[int]int, len(c.Tariffs))
	for code, pct := range c.Tariffs {
		if code < 0 || code > 9999 {
			return c, fmt.Errorf("tariff code %d must be 0..9999", code)
		}
		if pct < 0 || pct > 1000 {
			return c, fmt.Errorf("tariff %d: percentage %d must be 0..1000", code, pct)
		}
		tariffs[code] = pct
	}
	c.Tariffs = tariffs
	if c.TariffAges == nil {
		c.TariffAges = DefaultTariffAges
	}
	ages := make(map[int]AgeRange, len(c.TariffAges))
	for code, r := range c.TariffAges {
		if r.Min < 0 || r.Max > 150 || r.Min > r.Max {
			return c, fmt.Errorf("tariff %d: ages %d..%d must be within 0..150, the first not above the second", code, r.Min, r.Max)
		}
		ages[code] = r
	}
	c.TariffAges = ages
	seen := map[[2]int]bool{}
	for _, f := range c.Fares {
		if f.TravelClass != legacy.FirstClass && f.TravelClass != legacy.SecondClass {
			return c, fmt.Errorf("fare: travel class %d must be 1 or 2", f.TravelClass)
		}
		if f.ServiceCode < legacy.ServiceSeat || f.ServiceCode > legacy.ServiceBerth {
			return c, fmt.Errorf("fare: service code %d must be 1, 2 or 3", f.ServiceCode)
		}
		if f.Cents < 0 || f.Cents > math.MaxInt32 {
			return c, fmt.Errorf("fare %d %d: amount out of range", f.TravelClass, f.ServiceCode)
		}
		k := [2]int{f.TravelClass, f.ServiceCode}
		if seen[k] {
			return c, fmt.Errorf("fare for class %d service code %d given twice", f.TravelClass, f.ServiceCode)
		}
		seen[k] = true
	}
	c.Fares = append([]Fare(nil), c.Fares...)
	if c.Currency == "" {
		c.Currency = DefaultCurrency
	}
	if len(c.Currency) != 3 || strings.Trim(c.Currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return c, fmt.Errorf("currency %q must be an ISO 4217 code of 3 capital letters", c.Currency)
	}
	switch {
	case c.CancelFeePercent == 0:
		c.CancelFeePercent = DefaultCancelFeePercent
	case c.CancelFeePercent == -1:
	case c.CancelFeePercent < 0 || c.CancelFeePercent > 100:
		return c, fmt.Errorf("cancel fee %d%% must be 0..100%%", c.CancelFeePercent)
	}
	foreign := map[string]bool{}
	for _, f := range c.Foreign {
		if err := f.Validate(); err != nil {
			return c, err
		}
		if foreign[f.Train] {
			return c, fmt.Errorf("foreign: train %s listed twice", f.Train)
		}
		if f.System == c.System {
			return c, fmt.Errorf("foreign %s: reservation system %d is this system's own", f.Train, f.System)
		}
		foreign[f.Train] = true
	}
	c.Foreign = append([]Foreign(nil), c.Foreign...)
	if c.Latency < 0 || c.Latency > MaxLatency {
		return c, fmt.Errorf("latency %s must be 0..%s", c.Latency, MaxLatency)
	}
	// Each fills in its default; the first error, in this order, is told.
	if err := cmp.Or(
		defaults.Duration("offer_ttl", &c.OfferTTL, DefaultOfferTTL),
		defaults.Duration("retention", &c.Retention, DefaultRetention),
		defaults.Count("max_entries", &c.MaxEntries, DefaultMaxEntries, MaxMaxEntries),
	); err != nil {
		return c, err
	}
	if c.MaxBody == 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.MaxBody < 1 || c.MaxBody > legacy.MaxBodyBytes {
		return c, fmt.Errorf("max_body %d must be 1..%d bytes", c.MaxBody, legacy.MaxBodyBytes)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}
