package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

func init() {
	caddy.RegisterModule(Sandbox{})
}

// Sandbox is the osdm_sandbox handler: an in-memory OSDM partner railway
// (package sandbox) that answers every request itself and never calls the
// next handler. It serves POST /offers, GET /trip-offers, POST /bookings,
// GET and DELETE /bookings/{id}, POST /bookings/{id}/fulfillments,
// POST /bookings/{id}/refund-offers, PATCH .../refund-offers/{rid} (also
// spelt refundOffers) and the debug listing GET /_sandbox/bookings, under
// any path prefix.
//
// Its bookings survive a config reload that leaves this handler's settings
// unchanged; two osdm_sandbox handlers with the same settings share them
// (set a different operator to keep two partners apart).
type Sandbox struct {
	// Capacity is the number of places per train run (train and date),
	// travel class and accommodation. Default 100.
	Capacity int `json:"capacity,omitempty"`
	// OfferTTL is how long offers (and refund offers) stay bookable.
	// Default 15m.
	OfferTTL caddy.Duration `json:"offer_ttl,omitempty"`
	// BookingTTL is how long a provisional booking holds its places before
	// it must be fulfilled (its confirmationTimeLimit). Default 15m.
	BookingTTL caddy.Duration `json:"booking_ttl,omitempty"`
	// Retention is how long finished bookings and idempotency keys are
	// kept. Default 24h.
	Retention caddy.Duration `json:"retention,omitempty"`
	// MaxEntries caps the offers, the bookings and the idempotency keys
	// held (each); the oldest go first. Default 10000.
	MaxEntries int `json:"max_entries,omitempty"`
	// Operator is the RICS company code the sandbox sells as ("1185" or
	// "urn:uic:rics:1185"). Default urn:uic:rics:9999.
	Operator string `json:"operator,omitempty"`
	// ExternalInventory lists trains sold by another reservation system:
	// searching one answers the OSDM problem ALTERNATIVE_SYSTEM_PROPOSAL.
	ExternalInventory []osdmsandbox.ExternalInventory `json:"external_inventory,omitempty"`
	// Trains fixes the departure and arrival times of some trains; the
	// others get a made-up timetable.
	Trains []osdmsandbox.Schedule `json:"trains,omitempty"`
	// UnknownTrains are train numbers that are not found (404 NO_RESULTS),
	// besides those made only of zeros ("0").
	UnknownTrains []string `json:"unknown_trains,omitempty"`

	sandboxHold[*osdmsandbox.Sandbox]
}

// CaddyModule returns the Caddy module information.
func (Sandbox) CaddyModule() caddy.ModuleInfo {
	return glue.ModuleInfo[Sandbox]("http.handlers.osdm_sandbox")
}

// sandboxes holds the sandboxes across config reloads, keyed by their
// settings, so a reload does not lose the partner's bookings. A sandbox
// holds no goroutine: there is nothing to free.
var sandboxes = glue.NewPool[*osdmsandbox.Sandbox](nil)

// Provision builds (or finds, after a reload) the sandbox.
func (s *Sandbox) Provision(caddy.Context) error {
	cfg := s.config()
	// The settings are the key: equal settings were checked by the
	// constructor when first seen.
	key, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("sandbox settings: %w", err)
	}
	return s.take(sandboxes, string(key), func() (*osdmsandbox.Sandbox, error) {
		return osdmsandbox.New(cfg)
	})
}

// config is the sandbox's configuration of s.
func (s *Sandbox) config() osdmsandbox.Config {
	return osdmsandbox.Config{
		Capacity:          s.Capacity,
		OfferTTL:          time.Duration(s.OfferTTL),
		BookingTTL:        time.Duration(s.BookingTTL),
		Retention:         time.Duration(s.Retention),
		MaxEntries:        s.MaxEntries,
		Operator:          s.Operator,
		ExternalInventory: s.ExternalInventory,
		Timetable:         s.Trains,
		UnknownTrains:     s.UnknownTrains,
	}
}

// ServeHTTP answers the request with the sandbox as the client
// osdm_access let it through for (the anonymous owner without
// osdm_access); next is never called.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	s.handler.ServeClient(w, r, glue.Client(r))
	return nil
}

// Validate checks the settings as the sandbox does.
func (s *Sandbox) Validate() error {
	return s.config().Validate()
}

// Interface guards (glue.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner  = (*Sandbox)(nil)
	_ caddy.Validator    = (*Sandbox)(nil)
	_ caddy.CleanerUpper = (*Sandbox)(nil)
)
