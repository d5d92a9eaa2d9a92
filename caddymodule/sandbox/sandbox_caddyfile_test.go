package sandbox

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

func TestSandboxUnmarshalCaddyfile(t *testing.T) {
	src := `osdm_sandbox {
		capacity           40
		offer_ttl          10m
		booking_ttl        2m
		retention          1h
		max_entries        500
		operator           1185
		external_inventory 462 80 1080
		external_inventory 463 81 urn:uic:rics:1081 409
		train              9203 22:10 06:45
		train              708 08:30 11:00
		unknown_train      777 778
		unknown_train      779
	}`
	want := &Sandbox{
		Capacity: 40, OfferTTL: caddy.Duration(10 * time.Minute), BookingTTL: caddy.Duration(2 * time.Minute),
		Retention: caddy.Duration(time.Hour), MaxEntries: 500, Operator: "1185",
		ExternalInventory: []osdmsandbox.ExternalInventory{
			{Train: "462", ReservationSystemID: 80, Operator: "1080"},
			{Train: "463", ReservationSystemID: 81, Operator: "urn:uic:rics:1081", Status: 409},
		},
		Trains:        []osdmsandbox.Schedule{{Train: "9203", Departure: "22:10", Arrival: "06:45"}, {Train: "708", Departure: "08:30", Arrival: "11:00"}},
		UnknownTrains: []string{"777", "778", "779"},
	}
	harness.CheckUnmarshal(t, src, new(Sandbox), want)

	one := 0
	harness.CheckUnmarshal(t, `osdm_sandbox {
		timetable    /etc/osdm/timetable.zip stop_id
		max_changes  0
		min_transfer 7m
		max_trips    9
		documents    none
	}`, new(Sandbox), &Sandbox{Timetable: "/etc/osdm/timetable.zip", TimetableStationCode: "stop_id", MaxChanges: &one,
		MinTransfer: caddy.Duration(7 * time.Minute), MaxTrips: 9, Documents: "none"})

	checkBareDirective[Sandbox](t, "osdm_sandbox")
}

func TestSandboxUnmarshalCaddyfileErrors(t *testing.T) {
	harness.CheckRefusals(t, "osdm_sandbox", func() caddyfile.Unmarshaler { return new(Sandbox) }, []harness.Refusal{
		{"bogus 1", `unrecognized subdirective "bogus"`},
		{"capacity 10\ncapacity 20", "capacity already specified"},
		{"capacity many", `capacity "many" must be a number 1..10000`},
		{"capacity 0", "must be a number 1..10000"},
		{"capacity", "wrong argument count"},
		{"documents html", `documents "html": want pdf or none`},
		{"documents", "wrong argument count"},
		{"offer_ttl soon", "offer_ttl"},
		{"booking_ttl -1m", "must be positive"},
		{"max_entries 0", "max_entries"},
		{"operator SBB", "RICS"},
		{"external_inventory 462 80", "wrong argument count"},
		{"external_inventory 462 eighty 1080", "reservation system id"},
		{"external_inventory 462 80 108", "RICS"},
		{"external_inventory 462 80 1080 200", "status 200 must be 400..499"},
		{"external_inventory 462 80 1080 conflict", "status"},
		{"external_inventory 462 80 1080\nexternal_inventory 462 81 1081", "train 462 already specified"},
		{"train 708 08:30", "wrong argument count"},
		{"train 708 8:30 11:00", "departure"},
		{"train 708 08:30 11:00\ntrain 708 09:30 12:00", "train 708 already specified"},
		{"unknown_train", "wrong argument count"},
		{"unknown_train 7-7", "unknown_train"},
		{"timetable", "wrong argument count"},
		{"timetable a.zip stop_name", `station code "stop_name": want stop_code or stop_id`},
		{"timetable a.zip\ntimetable b.zip", "timetable already specified"},
		{"max_changes 3", `max_changes "3": want 0 (direct trains only) to 2`},
		{"max_changes -1", `max_changes "-1": want 0 (direct trains only) to 2`},
		{"min_transfer now", "min_transfer"},
		{"min_transfer 0s", "must be positive"},
		{"max_trips 51", "max_trips"},
	})
}

// A Caddyfile with a bad osdm_sandbox subdirective fails to adapt, naming
// the file and the line.
func TestSandboxCaddyfileAdaptErrorNamesFileAndLine(t *testing.T) {
	harness.CheckAdaptRefused(t, `:9441 {
	route {
		osdm_sandbox {
			capacity 40
			seats 12
		}
	}
}
`, "Caddyfile:5", `"seats"`)
}

// The adapted JSON carries what was written, and osdm_sandbox needs no
// order line (it is ordered after reverse_proxy).
func TestSandboxCaddyfileAdaptJSON(t *testing.T) {
	harness.CheckAdaptedJSON(t, `:9441 {
	osdm_sandbox {
		capacity 40
		offer_ttl 15m
		external_inventory 462 80 1080
	}
}
`, `{"capacity":40,"external_inventory":[{"operator":"1080","reservation_system_id":80,"train":"462"}],"handler":"osdm_sandbox","offer_ttl":900000000000}`)
}

// What only the whole block shows (a bound of the sandbox that no
// subdirective's reader checks, a timetable beside fixed trains) is
// refused when the Caddyfile is adapted, naming the file and the
// directive's line, not only later, without a place, when Caddy loads it.
func TestSandboxCaddyfileBlockRefusedAtAdapt(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"min_transfer 7h", "min_transfer 7h0m0s must be at most 6h0m0s"},
		{"timetable /srv/feed.zip\n\t\t\ttrain 708 08:30 11:00", "train 708: with a timetable, the trains' times are the timetable's"},
		{"train 708 08:30 11:00\n\t\t\tunknown_train 708", "unknown_train 708 also has a train line with its times: list it in one of them"},
	} {
		harness.CheckAdaptRefused(t, ":9441 {\n\troute {\n\t\tosdm_sandbox {\n\t\t\t"+tc.block+"\n\t\t}\n\t}\n}\n", "osdm_sandbox: "+tc.want+", at Caddyfile:3", "")
	}
}
