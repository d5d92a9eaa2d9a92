package legacyprovider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// Every subdirective of osdm_legacy is read into the JSON config, and the
// directive needs no order line (it is ordered before reverse_proxy).
func TestOSDMLegacyCaddyfileAdaptJSON(t *testing.T) {
	cf := `:9443 {
	route /osdm/* {
		uri strip_prefix /osdm
		osdm_legacy {
			partner hermes-fr
			timetable /etc/osdm/timetable.zip stop_id
			search information_only
			max_trains 6
			window 3h
			max_changes 2
			min_transfer 7m
			max_trips 4
			booking_horizon 400d
			concurrency 2
			tariff ADULT 26 64 1
			tariff CHILD 4 11 2
			reason TECHNICAL_FAILURE 1
			refund_fee 10%
			exchange_fee 10%
			offer_ttl 15m
			hold 20m
			store redis 127.0.0.1:6379 osdm:fr:
			timeout 20s
			max_body 256KiB
			services seat couchette
			legacy_format json
			legacy_path /hermes
			time_zone Europe/Brussels
			settle_interval 30s
			documents none
		}
		reverse_proxy 127.0.0.1:8443
	}
}
`
	out := harness.Adapt(t, "Caddyfile", cf)
	var got map[string]any
	var found bool
	harness.WalkHandlers(mustJSON(t, out), func(h map[string]any) {
		if h["handler"] == "osdm_legacy" {
			got, found = h, true
		}
	})
	if !found {
		t.Fatalf("no osdm_legacy handler in\n%s", out)
	}
	want := `{"booking_horizon":34560000000000000,"concurrency":2,"documents":"none","exchange_fee":"10%","handler":"osdm_legacy","hold":1200000000000,"legacy_format":"json","legacy_path":"/hermes","max_body":262144,"max_changes":2,"max_trains":6,"max_trips":4,"min_transfer":420000000000,"offer_ttl":900000000000,"partner":"hermes-fr","reasons":{"TECHNICAL_FAILURE":1},"refund_fee":"10%","search":"information_only","services":[1,2],"settle_interval":30000000000,"store":{"address":"127.0.0.1:6379","engine":"redis","prefix":"osdm:fr:"},"tariffs":[{"code":1,"max_age":64,"min_age":26,"type":"ADULT"},{"code":2,"max_age":11,"min_age":4,"type":"CHILD"}],"time_zone":"Europe/Brussels","timeout":20000000000,"timetable":"/etc/osdm/timetable.zip","timetable_station_code":"stop_id","window":10800000000000}`
	b, _ := json.Marshal(got)
	if string(b) != want {
		t.Errorf("adapted\n%s\nwant\n%s", b, want)
	}
	// The handler runs before reverse_proxy and after uri.
	s := string(out)
	if u, l, r := strings.Index(s, `"handler":"rewrite"`), strings.Index(s, `"handler":"osdm_legacy"`), strings.Index(s, `"handler":"reverse_proxy"`); !(u < l && l < r) {
		t.Errorf("handler order rewrite %d, osdm_legacy %d, reverse_proxy %d", u, l, r)
	}
}

func mustJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A bad subdirective fails to adapt, naming the file and its line; a
// block that is wrong as a whole names the directive's line.
func TestOSDMLegacyCaddyfileErrors(t *testing.T) {
	cases := []struct {
		block, where, what string
	}{
		{"partner a\n\t\t\ttrains 8", "Caddyfile:5", `"trains"`},
		{"partner a\n\t\t\tmax_train 8", "Caddyfile:5", `unrecognized subdirective "max_train"; did you mean "max_trains"?`},
		{"partner a\n\t\t\tfrobnicate 8", "Caddyfile:5", `unrecognized subdirective "frobnicate" (known: partner, timetable,`},
		{"partner a\n\t\t\tpartner b", "Caddyfile:5", "already specified"},
		{"partner a\n\t\t\tmax_trains 0", "Caddyfile:5", "positive"},
		{"partner a\n\t\t\twindow soon", "Caddyfile:5", "duration"},
		{"partner a\n\t\t\tbooking_horizon a-year", "Caddyfile:5", `booking_horizon "a-year": not a positive duration`},
		{"partner a\n\t\t\tbooking_horizon -1d", "Caddyfile:5", "not a positive duration"},
		{"partner a\n\t\t\tbooking_horizon 1d 2d", "Caddyfile:5", "booking_horizon: wrong number of arguments (2)"},
		{"partner a\n\t\t\tbooking_horizont 300d", "Caddyfile:5", `did you mean "booking_horizon"?`},
		{"partner a\n\t\t\ttariff ADULT 26 64", "Caddyfile:5", "arguments"},
		{"partner a\n\t\t\ttariff ADULT x 64 1", "Caddyfile:5", "not a number"},
		{"partner a\n\t\t\treason STRIKE 5\n\t\t\treason STRIKE 6", "Caddyfile:6", "already specified"},
		{"partner a\n\t\t\trefund_fee 120%", "Caddyfile:5", "100%"},
		{"partner a\n\t\t\texchange_fee 101%", "Caddyfile:5", "100%"},
		{"partner a\n\t\t\texchange_fee 2,50 EUR", "Caddyfile:5", `exchange_fee "2,50 EUR": want a percentage`},
		{"partner a\n\t\t\trefund_fee ten%", "Caddyfile:5", `refund_fee "ten%": a percentage`},
		{"partner a\n\t\t\trefund_fee 1.005 EUR", "Caddyfile:5", `refund_fee "1.005 EUR": EUR has 2 decimals, the legacy system's fee can have no more`},
		{"partner a\n\t\t\tstore mongo x", "Caddyfile:5", "a store name takes no more arguments"},
		{"partner a\n\t\t\tstore redis", "Caddyfile:5", "redis"},
		{"partner a\n\t\t\tmax_body 2MiB", "Caddyfile:5", "1MiB"},
		{"partner a\n\t\t\tservices bed", "Caddyfile:5", "bed"},
		{"partner a\n\t\t\tsearch everything", "Caddyfile:5", "availability or information_only"},
		{"partner a\n\t\t\ttariff ADULT 64 26 1", "Caddyfile:5", "age range"},
		{"partner a\n\t\t\tlegacy_format yaml", "Caddyfile:5", "xml or json"},
		{"partner a\n\t\t\ttime_zone Local", "Caddyfile:3", `osdm_legacy: time_zone "Local" is the zone of the machine Caddy runs on, not an IANA zone`},
		{"partner a\n\t\t\tlegacy_path /hermes?v=2", "Caddyfile:5", `legacy_path "/hermes?v=2" must be a plain path: no query, fragment, space or control character ('?' at byte 7)`},
		{"partner a\n\t\t\tlegacy_path \"/her mes\"", "Caddyfile:5", `legacy_path "/her mes" must be a plain path`},
		{"partner a\n\t\t\tdocuments html", "Caddyfile:5", `documents "html": want pdf or none`},
		{"partner a\n\t\t\tdocuments", "Caddyfile:5", "documents: wrong number of arguments (0)"},
		{"partner a\n\t\t\tdocuments pdf\n\t\t\tdocuments none", "Caddyfile:6", "already specified"},
		{"partner a\n\t\t\tmax_changes 3", "Caddyfile:5", `max_changes "3": want 0 (direct trains only) to 2`},
		{"partner a\n\t\t\tmax_changes -1", "Caddyfile:5", "want 0 (direct trains only) to 2"},
		{"partner a\n\t\t\tmax_changes one", "Caddyfile:5", "want 0 (direct trains only) to 2"},
		{"partner a\n\t\t\tmax_change 1", "Caddyfile:5", `did you mean "max_changes"?`},
		{"partner a\n\t\t\tmin_transfer 0s", "Caddyfile:5", `min_transfer "0s": not a positive duration`},
		{"partner a\n\t\t\tmax_trips 0", "Caddyfile:5", `max_trips "0": not a positive number`},
		{"partner a\n\t\t\tmax_trips 6 7", "Caddyfile:5", "max_trips: wrong number of arguments (2)"},
		// Errors of the block as a whole name the directive's line.
		{"partner a\n\t\t\tmin_transfer 7h", "Caddyfile:3", "min_transfer 7h0m0s must be at most 6h"},
		{"partner a\n\t\t\tmax_trips 51", "Caddyfile:3", "max_trips 51 must be 1..50"},
		{"partner a\n\t\t\twindow 72h", "Caddyfile:3", "48h"},
		{"timeout 5s", "Caddyfile:3", "partner is required"},
	}
	for _, tc := range cases {
		cf := ":9443 {\n\troute {\n\t\tosdm_legacy {\n\t\t\t" + tc.block + "\n\t\t}\n\t}\n}\n"
		err := harness.TryAdapt("Caddyfile", cf)
		if err == nil || !strings.Contains(err.Error(), tc.where) || !strings.Contains(err.Error(), tc.what) {
			t.Errorf("%q: err = %v, want %s and %q", tc.block, err, tc.where, tc.what)
		}
	}
	if err := harness.TryUnmarshal(new(OSDMLegacy), "osdm_legacy extra {\n}"); err == nil {
		t.Error("an argument on the directive line was accepted")
	}
}

// max_changes 0 (direct trains only) is kept in the JSON, not taken for
// the default of one change.
func TestOSDMLegacyCaddyfileDirectOnly(t *testing.T) {
	cf := ":9443 {\n\troute {\n\t\tosdm_legacy {\n\t\t\tpartner a\n\t\t\tmax_changes 0\n\t\t}\n\t}\n}\n"
	out := harness.Adapt(t, "Caddyfile", cf)
	if !strings.Contains(string(out), `"max_changes":0`) {
		t.Errorf("adapted %s, want max_changes 0", out)
	}
	m := &OSDMLegacy{Partner: "a", MaxChanges: new(int)}
	cfg, err := m.facadeConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err = cfg.Normalize(); err != nil || *cfg.MaxChanges != 0 {
		t.Errorf("max_changes 0 normalized to %v (%v), want 0", cfg.MaxChanges, err)
	}
}
