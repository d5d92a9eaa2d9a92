package osdmlegacy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// SearchMode says which legacy message an offer search sends per train,
// class and service code.
type SearchMode string

// The search modes of the `search` subdirective.
const (
	// SearchAvailability sends an AvailabilityRequest (the default).
	SearchAvailability SearchMode = "availability"
	// SearchInformationOnly sends a BookingRequest with informationOnly=true,
	// for legacy systems that answer offers only that way.
	SearchInformationOnly SearchMode = "information_only"
)

// DocumentMode says which documents a fulfilment offers.
type DocumentMode string

// The document modes of the `documents` subdirective.
const (
	// DocumentsPDF: every FULFILLED fulfilment has its ticket as a PDF
	// (the default).
	DocumentsPDF DocumentMode = "pdf"
	// DocumentsNone: fulfilments carry their control number and no
	// document, for a consumer that prints its own tickets.
	DocumentsNone DocumentMode = "none"
)

// Defaults of the osdm_legacy subdirectives.
const (
	defaultMaxTrains = 8
	// defaultMaxChanges is how many changes a journey may have: one.
	defaultMaxChanges = 1
	// MaxMaxChanges bounds max_changes: two changes (three trains).
	MaxMaxChanges = 2
	// defaultMinTransfer is the shortest change at a station the
	// timetable's transfers.txt says nothing of.
	defaultMinTransfer = 10 * time.Minute
	// defaultMaxTrips is how many trips a timetable search answers at most.
	defaultMaxTrips    = 6
	defaultWindow      = 4 * time.Hour
	defaultConcurrency = 4
	defaultOfferTTL    = 15 * time.Minute
	defaultHold        = 20 * time.Minute
	defaultTimeout     = 20 * time.Second
	// defaultBookingHorizon is how far ahead trains are sold: 365 days.
	defaultBookingHorizon = 365 * 24 * time.Hour
	defaultMaxBody        = 256 << 10
	// MaxMaxBody bounds max_body: an OSDM request of this façade is a few KiB.
	MaxMaxBody = 1 << 20
	// maxPassengers is restriction 5: at most 9 passengers (the legacy
	// PlaceRequest's limit).
	maxPassengers = 9
)

// Config is what the `osdm_legacy` subdirectives say.
// The zero value of a field means its default; Normalize fills them in.
type Config struct {
	// Partner names the legacy system in logs, metrics and problem texts.
	Partner string
	// Timetable is the path of the GTFS static feed (zip or folder) the
	// caller loaded into Deps.Timetable; kept for logs. "" when none: a
	// search must then name its train.
	Timetable string
	// Search is SearchAvailability (default) or SearchInformationOnly.
	Search SearchMode
	// MaxTrains is the most trains one offer search asks about (default 8).
	MaxTrains int
	// Window is how far from the asked time a timetable search looks
	// (default 4h).
	Window time.Duration
	// MaxChanges is how many changes a journey of a timetable search or a
	// trip specification may have: nil means defaultMaxChanges, 0 direct
	// trains only, at most MaxMaxChanges.
	MaxChanges *int
	// MinTransfer is the shortest change between two trains at a station
	// the timetable gives no minimum transfer time for (default 10m).
	MinTransfer time.Duration
	// MaxTrips is the most trips a timetable search answers (default 6).
	MaxTrips int
	// BookingHorizon is how far ahead of today (at the origin station) a
	// train is sold; a search for a later day is refused before any legacy
	// message (default defaultBookingHorizon).
	BookingHorizon time.Duration
	// Concurrency is the most legacy messages in flight for one OSDM call
	// (default 4).
	Concurrency int
	// Tariffs map OSDM passengers to legacy tariff codes, first match
	// wins; nil means defaultTariffs.
	Tariffs []TariffRule
	// Reasons map OSDM overrule codes to legacy cancel reason codes; nil
	// means DefaultReasons.
	Reasons map[osdm.OverruleCode]int
	// RefundFee is what a refund offer quotes for an ordinary refund.
	RefundFee Fee
	// ExchangeFee is what an exchange offer quotes on top of the price
	// difference (a percentage of the exchanged booking's price, or an
	// amount); none with an overruleCode. The legacy system keeps it as
	// the cancellation fee of the old places, so it is either zero (the
	// old places are then cancelled with the technical reason code) or
	// RefundFee, the legacy system's one cancellation fee.
	ExchangeFee Fee
	// OfferTTL is how long an offer stays bookable (default 15m).
	OfferTTL time.Duration
	// Hold is how long a PREBOOKED booking holds its places (default 20m).
	Hold time.Duration
	// Timeout bounds one OSDM call, all its legacy messages included
	// (default 20s).
	Timeout time.Duration
	// MaxBody is the largest OSDM request body read, in bytes (default
	// 256 KiB, at most 1 MiB).
	MaxBody int64
	// Location is the time zone of a station whose UIC country has none
	// known, for local times; nil means Europe/Paris.
	Location *time.Location
	// ServiceCodes are the legacy service codes an offer search asks for
	// per train and class (1 seat, 2 couchette, 3 berth); nil means seats
	// only. OSDM's offer search cannot say which it wants.
	ServiceCodes []int
	// LegacyFormat is the form legacy messages are sent in: legacy.XML
	// (default) or legacy.JSON.
	LegacyFormat legacy.Format
	// Documents is DocumentsPDF (default) or DocumentsNone.
	Documents DocumentMode
}

// TariffRule maps an OSDM passenger type and age range to a legacy tariff
// code (`tariff ADULT 26 64 1`).
type TariffRule struct {
	// Type is the OSDM passenger type, e.g. ADULT.
	Type osdm.PassengerType
	// MinAge and MaxAge bound the age in years, both included.
	MinAge, MaxAge int
	// Code is the 918-1 tariff code, 0..9999.
	Code int
}

// defaultTariffs are the tariff rules when none are configured: they take
// back what osdm_convert's default table sends (1 ADULT 30, 2 CHILD 8,
// 3 SENIOR 65, 4 YOUTH 16).
func defaultTariffs() []TariffRule {
	return []TariffRule{
		{Type: osdm.PassengerAdult, MinAge: 18, MaxAge: 150, Code: 1},
		{Type: osdm.PassengerChild, MinAge: 0, MaxAge: 17, Code: 2},
		{Type: osdm.PassengerSenior, MinAge: 60, MaxAge: 150, Code: 3},
		{Type: osdm.PassengerYouth, MinAge: 12, MaxAge: 27, Code: 4},
		// OSDM 3 consumers send PERSON with an age or date of birth: a
		// child's, an adult's or a senior's tariff by age.
		{Type: osdm.PassengerPerson, MinAge: 0, MaxAge: 17, Code: 2},
		{Type: osdm.PassengerPerson, MinAge: 18, MaxAge: 59, Code: 1},
		{Type: osdm.PassengerPerson, MinAge: 60, MaxAge: 150, Code: 3},
	}
}

// DefaultReasons are the overrule code -> legacy reason code rules when
// none are configured, the inverse of osdm_convert's default table.
func DefaultReasons() map[osdm.OverruleCode]int {
	return map[osdm.OverruleCode]int{
		osdm.OverruleTechnicalFailure: 1,
		osdm.OverruleSalesStaffError:  2,
		osdm.OverruleDisruption:       3,
		osdm.OverruleConnectionBroken: 4,
		osdm.OverruleStrike:           5,
	}
}

// Fee is the refund fee of an ordinary refund: a share of the price
// (`refund_fee 10%`) or a fixed amount (`refund_fee 2.50 EUR`).
type Fee struct {
	// BasisPoints is the share in 1/100 of a percent (10% is 1000);
	// used when Amount is "".
	BasisPoints int
	// Amount is a fixed fee as a decimal string ("2.50"), with Currency.
	Amount   string
	Currency string
}

// ParseFee reads a `refund_fee` or `exchange_fee` value: "10%", "12.5%",
// or "2.50 EUR" (amount and currency as two words joined by one space).
// Its errors quote the value and leave the directive's name to the caller.
func ParseFee(s string) (Fee, error) {
	s = strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		whole, frac, _ := strings.Cut(pct, ".")
		if len(frac) > 2 || whole == "" || !allDigits(whole) || !allDigits(frac) {
			return Fee{}, fmt.Errorf("%q: a percentage is digits with at most two decimals after a point, then %%, e.g. 10%% or 12.5%%", s)
		}
		frac += strings.Repeat("0", 2-len(frac))
		bp, err := strconv.Atoi(whole + frac)
		if err != nil || bp > 10000 {
			return Fee{}, fmt.Errorf("%q must be 0%%..100%%", s)
		}
		return Fee{BasisPoints: bp}, nil
	}
	amount, currency, ok := strings.Cut(s, " ")
	if !ok || !validDecimal(amount) || len(currency) != 3 || strings.ToUpper(currency) != currency || !allLetters(currency) {
		return Fee{}, fmt.Errorf("%q: want a percentage (10%%) or an amount and an ISO 4217 currency (2.50 EUR)", s)
	}
	// The fee is what the legacy system keeps, in its currency's minor
	// unit: an amount finer than that could never be the one it records.
	if _, frac, _ := strings.Cut(amount, "."); len(frac) > legacy.MinorUnit(currency) {
		return Fee{}, fmt.Errorf("%q: %s has %d decimals, the legacy system's fee can have no more", s, currency, legacy.MinorUnit(currency))
	}
	return Fee{Amount: amount, Currency: currency}, nil
}

// zero reports whether the fee is none (0%, or an amount of 0).
func (f Fee) zero() bool {
	if f.Amount == "" {
		return f.BasisPoints == 0
	}
	return strings.Trim(f.Amount, "0.") == ""
}

// same reports whether f and g are the same fee (2.5 EUR is 2.50 EUR).
func (f Fee) same(g Fee) bool {
	if f.Amount == "" || g.Amount == "" {
		return f == g
	}
	a, err1 := decimalPrice(f.Amount, f.Currency)
	b, err2 := decimalPrice(g.Amount, g.Currency)
	sc := max(a.EffectiveScale(), b.EffectiveScale())
	return err1 == nil && err2 == nil && a.Currency == b.Currency && rescale(a, sc) == rescale(b, sc)
}

// String writes the fee back in ParseFee's form.
func (f Fee) String() string {
	if f.Amount != "" {
		return f.Amount + " " + f.Currency
	}
	s := strconv.Itoa(f.BasisPoints/100) + "." + fmt.Sprintf("%02d", f.BasisPoints%100)
	return strings.TrimSuffix(strings.TrimSuffix(s, "0"), ".0") + "%"
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// validDecimal accepts a non-negative decimal with at most 4 decimals.
func validDecimal(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	return whole != "" && len(whole) <= 12 && allDigits(whole) && allDigits(frac) && (!dot || frac != "") && len(frac) <= 4
}

// Normalize returns cfg with its defaults filled in, or the first setting
// that is out of range.
func (cfg Config) Normalize() (Config, error) {
	if strings.TrimSpace(cfg.Partner) == "" {
		return cfg, errors.New("partner is required")
	}
	switch cfg.Search {
	case "":
		cfg.Search = SearchAvailability
	case SearchAvailability, SearchInformationOnly:
	default:
		return cfg, fmt.Errorf("search %q: want availability or information_only", cfg.Search)
	}
	switch cfg.Documents {
	case "":
		cfg.Documents = DocumentsPDF
	case DocumentsPDF, DocumentsNone:
	default:
		return cfg, fmt.Errorf("documents %q: want pdf or none", cfg.Documents)
	}
	defaults := []struct {
		name string
		v    *int
		def  int
		max  int
	}{
		{"max_trains", &cfg.MaxTrains, defaultMaxTrains, 100},
		{"concurrency", &cfg.Concurrency, defaultConcurrency, 64},
		{"max_trips", &cfg.MaxTrips, defaultMaxTrips, 50},
	}
	for _, d := range defaults {
		if *d.v == 0 {
			*d.v = d.def
		}
		if *d.v < 1 || *d.v > d.max {
			return cfg, fmt.Errorf("%s %d must be 1..%d", d.name, *d.v, d.max)
		}
	}
	durations := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"window", &cfg.Window, defaultWindow},
		{"offer_ttl", &cfg.OfferTTL, defaultOfferTTL},
		{"hold", &cfg.Hold, defaultHold},
		{"timeout", &cfg.Timeout, defaultTimeout},
		{"booking_horizon", &cfg.BookingHorizon, defaultBookingHorizon},
		{"min_transfer", &cfg.MinTransfer, defaultMinTransfer},
	}
	for _, d := range durations {
		if *d.v == 0 {
			*d.v = d.def
		}
		if *d.v < 0 {
			return cfg, fmt.Errorf("%s %s must be positive", d.name, *d.v)
		}
	}
	if cfg.Window > 48*time.Hour {
		return cfg, fmt.Errorf("window %s must be at most 48h", cfg.Window)
	}
	if cfg.MinTransfer > 6*time.Hour {
		return cfg, fmt.Errorf("min_transfer %s must be at most 6h", cfg.MinTransfer)
	}
	if cfg.MaxChanges == nil {
		n := defaultMaxChanges
		cfg.MaxChanges = &n
	} else {
		n := *cfg.MaxChanges
		if n < 0 || n > MaxMaxChanges {
			return cfg, fmt.Errorf("max_changes %d must be 0..%d", n, MaxMaxChanges)
		}
		cfg.MaxChanges = &n
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = defaultMaxBody
	}
	if cfg.MaxBody < 0 || cfg.MaxBody > MaxMaxBody {
		return cfg, fmt.Errorf("max_body %d must be 1..%d bytes", cfg.MaxBody, MaxMaxBody)
	}
	if cfg.Tariffs == nil {
		cfg.Tariffs = defaultTariffs()
	}
	for _, t := range cfg.Tariffs {
		if t.Type == "" || t.MinAge < 0 || t.MaxAge > 150 || t.MinAge > t.MaxAge || t.Code < 0 || t.Code > 9999 {
			return cfg, fmt.Errorf("tariff %s %d %d %d: want a passenger type, an age range within 0..150 and a code 0..9999", t.Type, t.MinAge, t.MaxAge, t.Code)
		}
	}
	if cfg.Reasons == nil {
		cfg.Reasons = DefaultReasons()
	}
	for overrule, code := range cfg.Reasons {
		if overrule == "" || code < 0 || code > 9999 {
			return cfg, fmt.Errorf("reason %s %d: want an overrule code and a reason code 0..9999", overrule, code)
		}
	}
	if cfg.RefundFee.Amount == "" && (cfg.RefundFee.BasisPoints < 0 || cfg.RefundFee.BasisPoints > 10000) {
		return cfg, fmt.Errorf("refund_fee %s must be 0%%..100%%", cfg.RefundFee)
	}
	if cfg.ExchangeFee.Amount == "" && (cfg.ExchangeFee.BasisPoints < 0 || cfg.ExchangeFee.BasisPoints > 10000) {
		return cfg, fmt.Errorf("exchange_fee %s must be 0%%..100%%", cfg.ExchangeFee)
	}
	if !cfg.ExchangeFee.zero() && !cfg.ExchangeFee.same(cfg.RefundFee) {
		return cfg, fmt.Errorf("exchange_fee %s: the legacy system keeps an exchange's fee as its cancellation fee of the old places, which refund_fee states (%s); set exchange_fee %s, or leave it out for exchanges without a fee", cfg.ExchangeFee, cfg.RefundFee, cfg.RefundFee)
	}
	if cfg.Location == nil {
		cfg.Location = defaultLocation
	}
	if len(cfg.ServiceCodes) == 0 {
		cfg.ServiceCodes = []int{legacy.ServiceSeat}
	}
	for i, sc := range cfg.ServiceCodes {
		if sc < legacy.ServiceSeat || sc > legacy.ServiceBerth {
			return cfg, fmt.Errorf("service code %d: want 1 (seat), 2 (couchette) or 3 (berth)", sc)
		}
		for _, o := range cfg.ServiceCodes[:i] {
			if o == sc {
				return cfg, fmt.Errorf("service code %d given twice", sc)
			}
		}
	}
	if cfg.LegacyFormat == 0 {
		cfg.LegacyFormat = legacy.XML
	}
	if cfg.LegacyFormat != legacy.XML && cfg.LegacyFormat != legacy.JSON {
		return cfg, fmt.Errorf("legacy format %d: want XML or JSON", cfg.LegacyFormat)
	}
	return cfg, nil
}

// maxChanges is MaxChanges once normalized.
func (cfg *Config) maxChanges() int {
	if cfg.MaxChanges == nil {
		return defaultMaxChanges
	}
	return *cfg.MaxChanges
}
