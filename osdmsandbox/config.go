package osdmsandbox

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/defaults"
	"github.com/caddy-osdm/caddy-osdm/timetable"
)

// Defaults of Config.
const (
	DefaultCapacity   = 100
	DefaultOfferTTL   = 15 * time.Minute
	DefaultBookingTTL = 15 * time.Minute
	DefaultRetention  = 24 * time.Hour
	DefaultMaxEntries = 10000
	// DefaultOperator is the RICS company code the sandbox sells as: a
	// placeholder, not a real railway.
	DefaultOperator = "urn:uic:rics:9999"
	// DefaultMaxChanges is how many changes of train a journey may have.
	DefaultMaxChanges = timetable.DefaultMaxChanges
	// DefaultMinTransfer is the shortest change of train at a station
	// the timetable gives no minimum transfer time for.
	DefaultMinTransfer = timetable.DefaultMinTransfer
	// DefaultMaxTrips is the most trips a search by origin and
	// destination answers from a GTFS timetable.
	DefaultMaxTrips = timetable.DefaultMaxTrips
)

// Limits of Config values, so that one typo cannot exhaust memory.
const (
	MaxCapacity   = 10000
	MaxMaxEntries = 1000000
	// MaxMaxChanges bounds MaxChanges: two changes, three trains.
	MaxMaxChanges = timetable.MaxChangesLimit
	// MaxMinTransfer bounds MinTransfer.
	MaxMinTransfer = 6 * time.Hour
	// MaxMaxTrips bounds MaxTrips.
	MaxMaxTrips = 50
)

// ricsPrefix starts an OSDM company code.
const ricsPrefix = "urn:uic:rics:"

// Config configures a Sandbox. The zero value is usable: every zero field
// takes its default.
type Config struct {
	// Capacity is the number of places per train run (train and date),
	// travel class and accommodation type. Default 100, at most 10000.
	Capacity int
	// OfferTTL is how long an offer can be booked (preBookableUntil), and
	// how long a refund offer can be confirmed. Default 15m.
	OfferTTL time.Duration
	// BookingTTL is how long a provisional booking holds its places
	// (confirmationTimeLimit); unfulfilled by then, it is released.
	// Default 15m.
	BookingTTL time.Duration
	// Retention is how long finished bookings (deleted, released,
	// refunded, or fulfilled and travelled) and idempotency keys are kept.
	// Default 24h.
	Retention time.Duration
	// MaxEntries caps each of the offers, bookings and idempotency keys
	// held; when full, the oldest is dropped (a dropped booking frees its
	// places). Default 10000.
	MaxEntries int
	// Operator is the RICS company code of the trains and products, as
	// "urn:uic:rics:NNNN" or "NNNN". Default urn:uic:rics:9999.
	Operator string
	// ExternalInventory lists the trains another reservation system sells.
	ExternalInventory []ExternalInventory
	// Timetable fixes the times of some trains; the others get made-up
	// ones. Not with Feed.
	Timetable []Schedule
	// Feed is a GTFS timetable: when set, the sandbox's trains are its
	// trains and nothing else, a search by origin and destination plans
	// journeys with changes on it, and trip specifications are checked
	// against it. Nil: every train number runs, at made-up times.
	Feed *timetable.Timetable
	// MaxChanges is how many changes of train a journey may have, in a
	// search of the Feed and in a trip specification: nil means
	// DefaultMaxChanges (1), 0 direct trains only, at most MaxMaxChanges.
	MaxChanges *int
	// MinTransfer is the shortest change of train at a station where the
	// Feed's transfers.txt gives no minimum (or without a Feed, anywhere).
	// Default 10m, at most 6h.
	MinTransfer time.Duration
	// MaxTrips is the most trips a search of the Feed answers. Default 6,
	// at most 50.
	MaxTrips int
	// UnknownTrains are train numbers searched in vain (404 NO_RESULTS),
	// besides those made only of zeros ("0", "000").
	UnknownTrains []string
	// NoDocuments issues fulfilments without a ticket document (the
	// control number is the ticket), rendering no PDF: for load tests of
	// what sits in front of the sandbox. Default false: every FULFILLED
	// fulfilment has its PDF_A4 ticket.
	NoDocuments bool
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
}

// ExternalInventory says that a train is sold by another reservation system:
// searching it answers the OSDM problem ALTERNATIVE_SYSTEM_PROPOSAL.
type ExternalInventory struct {
	// Train is the train (vehicle) number.
	Train string `json:"train"`
	// ReservationSystemID is the 90918-1 code of the other system, e.g. 80.
	ReservationSystemID int `json:"reservation_system_id"`
	// Operator is the RICS code of that system's operator, "NNNN" or
	// "urn:uic:rics:NNNN".
	Operator string `json:"operator"`
	// Status, when set (400..499), answers the problem as a problem+json
	// error with that status instead of inside a 200 offer response.
	Status int `json:"status,omitempty"`
}

// Schedule fixes the departure and arrival time of a train on every day.
type Schedule struct {
	// Train is the train (vehicle) number.
	Train string `json:"train"`
	// Departure is the time of day "HH:MM", in the offset of the search.
	Departure string `json:"departure"`
	// Arrival is the time of day "HH:MM"; not after Departure means the
	// next day.
	Arrival string `json:"arrival"`
}

// schedule is a parsed Schedule: minutes after midnight.
type schedule struct{ departure, arrival int }

// Validate checks c as New does, which it runs and drops.
func (c Config) Validate() error {
	_, err := New(c)
	return err
}

// withDefaults checks c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	// Each fills in its default; the first error, in this order, is told.
	if err := cmp.Or(
		defaults.Count("capacity", &c.Capacity, DefaultCapacity, MaxCapacity),
		defaults.Duration("offer_ttl", &c.OfferTTL, DefaultOfferTTL),
		defaults.Duration("booking_ttl", &c.BookingTTL, DefaultBookingTTL),
		defaults.Duration("retention", &c.Retention, DefaultRetention),
		defaults.Count("max_entries", &c.MaxEntries, DefaultMaxEntries, MaxMaxEntries),
		defaults.Duration("min_transfer", &c.MinTransfer, DefaultMinTransfer),
		defaults.Count("max_trips", &c.MaxTrips, DefaultMaxTrips, MaxMaxTrips),
	); err != nil {
		return c, err
	}
	if c.MinTransfer > MaxMinTransfer {
		return c, fmt.Errorf("min_transfer %v must be at most %v", c.MinTransfer, MaxMinTransfer)
	}
	n := DefaultMaxChanges
	if c.MaxChanges != nil {
		n = *c.MaxChanges
	}
	if n < 0 || n > MaxMaxChanges {
		return c, fmt.Errorf("max_changes %d must be 0..%d", n, MaxMaxChanges)
	}
	c.MaxChanges = &n
	if c.Feed != nil && len(c.Timetable) > 0 {
		return c, fmt.Errorf("train %s: with a GTFS timetable, the trains' times are the timetable's", c.Timetable[0].Train)
	}
	if c.Operator == "" {
		c.Operator = DefaultOperator
	}
	op, err := NormalizeRICS(c.Operator)
	if err != nil {
		return c, fmt.Errorf("operator: %w", err)
	}
	c.Operator = op
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

// NormalizeRICS returns the OSDM form "urn:uic:rics:NNNN" of a RICS
// company code given as "NNNN" or already in that form.
func NormalizeRICS(code string) (string, error) {
	digits := strings.TrimPrefix(code, ricsPrefix)
	if len(digits) != 4 || strings.Trim(digits, "0123456789") != "" {
		return "", fmt.Errorf("%q is not a RICS company code (4 digits, or urn:uic:rics: and 4 digits)", code)
	}
	return ricsPrefix + digits, nil
}

// ValidTrainNumber reports whether s can be a train number here: 1..8
// letters or digits (the legacy protocol allows 5).
func ValidTrainNumber(s string) bool {
	if len(s) < 1 || len(s) > 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// parseClock parses "HH:MM" into minutes after midnight.
func parseClock(s string) (int, error) {
	if len(s) != 5 || s[2] != ':' {
		return 0, errors.New("must be HH:MM")
	}
	h, err1 := strconv.Atoi(s[:2])
	m, err2 := strconv.Atoi(s[3:])
	if err1 != nil || err2 != nil || h > 23 || m > 59 || h < 0 || m < 0 {
		return 0, errors.New("must be HH:MM")
	}
	return h*60 + m, nil
}

// Validate checks the entry as New does.
func (e ExternalInventory) Validate() error {
	_, err := e.check()
	return err
}

// Validate checks the schedule as New does.
func (s Schedule) Validate() error {
	_, err := s.check()
	return err
}

// check validates an ExternalInventory entry and normalises its operator.
func (e ExternalInventory) check() (ExternalInventory, error) {
	if !ValidTrainNumber(e.Train) {
		return e, fmt.Errorf("external_inventory: train %q must be 1..8 letters or digits", e.Train)
	}
	if e.ReservationSystemID < 1 || e.ReservationSystemID > 9999 {
		return e, fmt.Errorf("external_inventory %s: reservation system id %d must be 1..9999", e.Train, e.ReservationSystemID)
	}
	op, err := NormalizeRICS(e.Operator)
	if err != nil {
		return e, fmt.Errorf("external_inventory %s: operator: %w", e.Train, err)
	}
	e.Operator = op
	if e.Status != 0 && (e.Status < 400 || e.Status > 499) {
		return e, fmt.Errorf("external_inventory %s: status %d must be 400..499", e.Train, e.Status)
	}
	return e, nil
}

// check validates a Schedule.
func (s Schedule) check() (schedule, error) {
	if !ValidTrainNumber(s.Train) {
		return schedule{}, fmt.Errorf("train %q must be 1..8 letters or digits", s.Train)
	}
	dep, err := parseClock(s.Departure)
	if err != nil {
		return schedule{}, fmt.Errorf("train %s: departure %q %v", s.Train, s.Departure, err)
	}
	arr, err := parseClock(s.Arrival)
	if err != nil {
		return schedule{}, fmt.Errorf("train %s: arrival %q %v", s.Train, s.Arrival, err)
	}
	if arr <= dep {
		arr += 24 * 60
	}
	return schedule{departure: dep, arrival: arr}, nil
}
