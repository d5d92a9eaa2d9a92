package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
	"github.com/caddy-osdm/caddy-osdm/timetable"
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
	// Timetable is a GTFS static feed (a .zip file or a folder): the
	// sandbox's trains are then the feed's, a search by origin and
	// destination plans journeys with changes on it, and trip
	// specifications are checked against it. Without one, every train
	// number runs at made-up times. Not with Trains.
	Timetable string `json:"timetable,omitempty"`
	// TimetableStationCode says where the feed's stops carry their UIC
	// code: stop_code (default) or stop_id.
	TimetableStationCode string `json:"timetable_station_code,omitempty"`
	// MaxChanges is how many changes of train a journey may have, planned
	// on the Timetable or specified: 0 (direct trains only) to 2. Default 1.
	MaxChanges *int `json:"max_changes,omitempty"`
	// MinTransfer is the shortest change of train at a station where the
	// Timetable's transfers.txt gives no minimum (without a Timetable,
	// anywhere). Default 10m, at most 6h.
	MinTransfer caddy.Duration `json:"min_transfer,omitempty"`
	// MaxTrips is the most trips a search of the Timetable answers.
	// Default 6, at most 50.
	MaxTrips int `json:"max_trips,omitempty"`
	// Documents is pdf (the default: every FULFILLED fulfilment has its
	// ticket as a PDF_A4 document) or none (fulfilments carry their
	// control number only, and no PDF is rendered: for load tests).
	Documents string `json:"documents,omitempty"`

	sandboxHold[*osdmsandbox.Sandbox]
}

// CaddyModule returns the Caddy module information.
func (Sandbox) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[Sandbox]("http.handlers.osdm_sandbox")
}

// sandboxes holds the sandboxes across config reloads, keyed by their
// settings, so a reload does not lose the partner's bookings. A sandbox
// holds no goroutine: there is nothing to free.
var sandboxes = modulekit.NewPool[*osdmsandbox.Sandbox](nil)

// Provision builds (or finds, after a reload) the sandbox.
func (s *Sandbox) Provision(caddy.Context) error {
	cfg := s.config()
	// The settings are the key (equal settings were checked by the
	// constructor when first seen), with the feed's size and time so that
	// a reload after the feed changed reads it again.
	key, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("sandbox settings: %w", err)
	}
	if s.Timetable != "" {
		fi, err := os.Stat(s.Timetable)
		if err != nil {
			return fmt.Errorf("timetable: %w", err)
		}
		key = fmt.Appendf(key, " %d %d", fi.Size(), fi.ModTime().UnixNano())
	}
	return s.take(sandboxes, string(key), func() (*osdmsandbox.Sandbox, error) {
		if s.Timetable != "" {
			tt, err := timetable.Load(s.Timetable, timetable.Options{StationCode: s.TimetableStationCode})
			if err != nil {
				return nil, fmt.Errorf("timetable %s: %w", s.Timetable, err)
			}
			cfg.Feed = tt
		}
		return osdmsandbox.New(cfg)
	})
}

// config is the sandbox's configuration of s, without its Feed (which
// Provision loads).
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
		MaxChanges:        s.MaxChanges,
		MinTransfer:       time.Duration(s.MinTransfer),
		MaxTrips:          s.MaxTrips,
		NoDocuments:       s.Documents == "none",
	}
}

// ServeHTTP answers the request with the sandbox as the client
// osdm_access let it through for (the anonymous owner without
// osdm_access): it reads the body (at most one byte more than the
// sandbox takes, so a larger one is answered 413), hands the call to the
// sandbox and writes its answer; next is never called.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	body, err := subrequest.ReadAllSized(io.LimitReader(r.Body, osdmsandbox.MaxBodyBytes+1), r.ContentLength)
	if err != nil {
		return osdmsandbox.UnreadBody(err).Write(w)
	}
	a := s.handler.ServeClient(r.Context(), modulekit.Client(r), r.Method, modulekit.RequestTarget(r), r.Header, body)
	return a.Write(w)
}

// Validate checks the settings as the sandbox does.
func (s *Sandbox) Validate() error {
	switch {
	case s.TimetableStationCode != "" && s.Timetable == "":
		return fmt.Errorf("timetable_station_code %q needs a timetable", s.TimetableStationCode)
	case s.TimetableStationCode != "" && s.TimetableStationCode != "stop_code" && s.TimetableStationCode != "stop_id":
		return fmt.Errorf("timetable_station_code %q: want stop_code or stop_id", s.TimetableStationCode)
	case s.Documents != "" && s.Documents != "pdf" && s.Documents != "none":
		return fmt.Errorf("documents %q: want pdf or none", s.Documents)
	case s.Timetable != "" && len(s.Trains) > 0:
		return fmt.Errorf("train %s: with a timetable, the trains' times are the timetable's", s.Trains[0].Train)
	}
	return s.config().Validate()
}

// Interface guards (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner  = (*Sandbox)(nil)
	_ caddy.Validator    = (*Sandbox)(nil)
	_ caddy.CleanerUpper = (*Sandbox)(nil)
)
