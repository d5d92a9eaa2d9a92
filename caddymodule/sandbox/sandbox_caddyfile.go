package sandbox

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

func init() {
	modulekit.RegisterHandler[Sandbox]("osdm_sandbox")
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	osdm_sandbox {
//		capacity           <places>
//		offer_ttl          <duration>
//		booking_ttl        <duration>
//		retention          <duration>
//		max_entries        <n>
//		operator           <RICS code>
//		external_inventory <train> <reservation system id> <operator RICS code> [<4xx status>]
//		train              <train> <departure HH:MM> <arrival HH:MM>
//		unknown_train      <train> [<train>...]
//		timetable          <gtfs.zip|folder> [stop_code|stop_id]
//		max_changes        <0..2>
//		min_transfer       <duration>
//		max_trips          <n>
//		documents          pdf|none
//	}
//
// Every subdirective is optional:
//   - capacity: places per train run (train and date), travel class and
//     accommodation; default 100.
//   - offer_ttl: how long offers and refund offers can be taken; default 15m.
//   - booking_ttl: how long a provisional booking holds its places before it
//     must be fulfilled; default 15m.
//   - retention: how long finished bookings and Idempotency-Keys are kept;
//     default 24h.
//   - max_entries: cap on offers, bookings and Idempotency-Keys held (each);
//     default 10000.
//   - operator: the RICS code the sandbox sells as; default 9999.
//   - external_inventory (repeatable): searching that train answers
//     ALTERNATIVE_SYSTEM_PROPOSAL inside a 200 offer response, or, with a
//     status, as a problem+json error with that status.
//   - train (repeatable): fixed times for a train, every day; the arrival
//     is the next day when not after the departure.
//   - unknown_train (repeatable): train numbers answered 404 NO_RESULTS
//     (as "0" always is).
//   - timetable: a GTFS feed whose trains the sandbox sells, planning
//     journeys with changes on it; the second argument says where a stop
//     carries its UIC code (default stop_code). Not with train.
//   - max_changes: changes of train a journey may have, planned or
//     specified; default 1, at most 2.
//   - min_transfer: the shortest change where the feed's transfers.txt
//     says nothing; default 10m, at most 6h.
//   - max_trips: the most trips a search of the timetable answers;
//     default 6, at most 50.
//   - documents: pdf (default) gives every FULFILLED fulfilment its ticket
//     as a PDF; none issues fulfilments with their control number only and
//     renders nothing (load tests of the gateway in front).
func (s *Sandbox) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	// The whole block is checked too (a bound no one line states, a
	// timetable with trains); Provision checks the same for JSON.
	return s.caddyfileTable().Unmarshal(d, s.Validate)
}

// caddyfileTable is osdm_sandbox's subdirectives, read into s.
func (s *Sandbox) caddyfileTable() modulekit.Table {
	external := map[string]bool{}
	scheduled := map[string]bool{}
	return modulekit.Table{Subs: []modulekit.Sub{
		modulekit.Int("capacity", &s.Capacity, 1, osdmsandbox.MaxCapacity),
		modulekit.Int("max_entries", &s.MaxEntries, 1, osdmsandbox.MaxMaxEntries), modulekit.Duration("offer_ttl", &s.OfferTTL),
		modulekit.Duration("booking_ttl", &s.BookingTTL), modulekit.Duration("retention", &s.Retention),
		modulekit.Func("operator", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			if _, err := osdmsandbox.NormalizeRICS(args[0]); err != nil {
				return d.Errf("operator: %v", err)
			}
			s.Operator = args[0]
			return nil
		}),
		modulekit.Entry("external_inventory", 3, 4, func(d *caddyfile.Dispenser, args []string) error {
			return s.unmarshalExternalInventory(d, args, external)
		}),
		modulekit.Entry("train", 3, 3, func(d *caddyfile.Dispenser, args []string) error {
			sc := osdmsandbox.Schedule{Train: args[0], Departure: args[1], Arrival: args[2]}
			if err := checkEntry(d, sc, scheduled, "train", sc.Train); err != nil {
				return err
			}
			s.Trains = append(s.Trains, sc)
			return nil
		}),
		modulekit.Entry("unknown_train", 1, modulekit.Many, func(d *caddyfile.Dispenser, args []string) error {
			for _, t := range args {
				if !osdmsandbox.ValidTrainNumber(t) {
					return d.Errf("unknown_train %q must be 1..8 letters or digits", t)
				}
			}
			s.UnknownTrains = append(s.UnknownTrains, args...)
			return nil
		}),
		modulekit.Timetable(&s.Timetable, &s.TimetableStationCode),
		modulekit.MaxChanges(&s.MaxChanges, osdmsandbox.MaxMaxChanges),
		modulekit.Duration("min_transfer", &s.MinTransfer), modulekit.Int("max_trips", &s.MaxTrips, 1, osdmsandbox.MaxMaxTrips),
		modulekit.OneOf("documents", &s.Documents, "pdf", "none"),
	}}
}

// unmarshalExternalInventory reads one external_inventory line; seen holds
// the trains listed before.
func (s *Sandbox) unmarshalExternalInventory(d *caddyfile.Dispenser, args []string, seen map[string]bool) error {
	system, err := strconv.Atoi(args[1])
	if err != nil {
		return d.Errf("external_inventory %s: reservation system id %q must be a number 1..9999", args[0], args[1])
	}
	e := osdmsandbox.ExternalInventory{Train: args[0], ReservationSystemID: system, Operator: args[2]}
	if len(args) == 4 {
		if e.Status, err = strconv.Atoi(args[3]); err != nil {
			return d.Errf("external_inventory %s: status %q must be a number 400..499", args[0], args[3])
		}
	}
	if err := checkEntry(d, e, seen, "external_inventory for train", e.Train); err != nil {
		return err
	}
	s.ExternalInventory = append(s.ExternalInventory, e)
	return nil
}
