package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

func init() {
	caddy.RegisterModule(LegacySandbox{})
}

// LegacySandbox is the legacy_sandbox handler: an in-memory legacy
// reservation system (package legacysandbox) that answers the legacy
// messages POSTed to it (AvailabilityRequest, BookingRequest, CancelRequest,
// in XML or JSON) and the debug listing GET .../_sandbox/bookings, under any
// path, and never calls the next handler.
//
// Its bookings survive a config reload that leaves this handler's settings
// (and its timetable file) unchanged; two legacy_sandbox handlers with the
// same settings share them (set another system to keep two apart).
type LegacySandbox struct {
	// System is the sandbox's own 918-1 reservation system code (its
	// BookingRefs start with it). Default 9999.
	System int `json:"system,omitempty"`
	// Capacity is the number of places per train run (train and service
	// date), travel class and service code. Default 100.
	Capacity int `json:"capacity,omitempty"`
	// Timetable is a GTFS static feed (a .zip file or a folder); without
	// it every train number runs every day at times derived from it.
	Timetable string `json:"timetable,omitempty"`
	// StationCode says where the feed's stops carry their UIC code:
	// stop_code (default) or stop_id.
	StationCode string `json:"station_code,omitempty"`
	// Foreign lists the trains sold by another reservation system: a
	// request for one gets a ReplacementProposal.
	Foreign []legacysandbox.Foreign `json:"foreign,omitempty"`
	// Latency is added to every answer. Default none.
	Latency caddy.Duration `json:"latency,omitempty"`
	// Tariffs is the tariff table: the codes taken and the percentage of
	// the fare each pays. Default 1 100%, 2 50%, 3 70%, 4 75%.
	Tariffs []LegacySandboxTariff `json:"tariffs,omitempty"`
	// Fares overrides the fares of a class and service code, in minor
	// units of the currency (default, in cents: 1st/2nd class seat
	// 1900/1200, couchette 4500/2900, berth 8900/5900).
	Fares []legacysandbox.Fare `json:"fares,omitempty"`
	// Currency is the ISO 4217 currency of the prices, written with its
	// minor unit's decimals (12.00 EUR, 1200 JPY). Default EUR.
	Currency string `json:"currency,omitempty"`
	// CancelFeePercent is the fee of a cancellation without a reason code,
	// in percent of the price, 0..100. Default 10.
	CancelFeePercent *int `json:"cancel_fee_percent,omitempty"`
	// OfferTTL is how long an OfferRef can be booked. Default 15m.
	OfferTTL caddy.Duration `json:"offer_ttl,omitempty"`
	// Retention is how long replies are kept for resent messageIds, and
	// bookings after their train has left. Default 24h.
	Retention caddy.Duration `json:"retention,omitempty"`
	// MaxEntries caps the replies remembered and the bookings held (each).
	// Default 10000.
	MaxEntries int `json:"max_entries,omitempty"`
	// MaxBody is the longest request body read, in bytes. Default 65536.
	MaxBody int64 `json:"max_body,omitempty"`

	sandboxHold[*legacysandbox.Sandbox]
}

// CaddyModule returns the Caddy module information.
func (LegacySandbox) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[LegacySandbox]("http.handlers.legacy_sandbox")
}

// legacySandboxes holds the sandboxes across config reloads, keyed by their
// settings, so a reload does not lose the bookings. A sandbox holds no
// goroutine: there is nothing to free.
var legacySandboxes = modulekit.NewPool[*legacysandbox.Sandbox](nil)

// Provision builds (or finds, after a reload) the sandbox.
func (s *LegacySandbox) Provision(caddy.Context) error {
	cfg := legacysandbox.Config{
		System:     s.System,
		Capacity:   s.Capacity,
		Foreign:    s.Foreign,
		Latency:    time.Duration(s.Latency),
		Fares:      s.Fares,
		Currency:   s.Currency,
		OfferTTL:   time.Duration(s.OfferTTL),
		Retention:  time.Duration(s.Retention),
		MaxEntries: s.MaxEntries,
		MaxBody:    s.MaxBody,
	}
	if s.Tariffs != nil {
		cfg.Tariffs = map[int]int{}
		for _, t := range s.Tariffs {
			if _, dup := cfg.Tariffs[t.Code]; dup {
				return fmt.Errorf("tariff %d given twice", t.Code)
			}
			cfg.Tariffs[t.Code] = t.Percent
		}
	}
	if p := s.CancelFeePercent; p != nil {
		if *p < 0 || *p > 100 {
			return fmt.Errorf("cancel_fee_percent %d must be 0..100", *p)
		}
		cfg.CancelFeePercent = *p
		if *p == 0 {
			cfg.CancelFeePercent = -1 // none
		}
	}
	if s.StationCode != "" && s.Timetable == "" {
		return fmt.Errorf("station_code %q needs a timetable", s.StationCode)
	}
	// The settings are the key, with the feed's size and time so that a
	// reload after the feed changed reads it again.
	key, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("legacy_sandbox settings: %w", err)
	}
	if s.Timetable != "" {
		fi, err := os.Stat(s.Timetable)
		if err != nil {
			return fmt.Errorf("timetable: %w", err)
		}
		key = fmt.Appendf(key, " %d %d", fi.Size(), fi.ModTime().UnixNano())
	}
	return s.take(legacySandboxes, string(key), func() (*legacysandbox.Sandbox, error) {
		if s.Timetable != "" {
			sched, err := legacysandbox.LoadGTFS(s.Timetable, s.StationCode)
			if err != nil {
				return nil, fmt.Errorf("timetable %s: %w", s.Timetable, err)
			}
			cfg.Schedule = sched
		}
		return legacysandbox.New(cfg)
	})
}

// Interface guards (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner  = (*LegacySandbox)(nil)
	_ caddy.CleanerUpper = (*LegacySandbox)(nil)
)
