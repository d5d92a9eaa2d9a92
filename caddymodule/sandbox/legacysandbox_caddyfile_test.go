package sandbox

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

func TestLegacySandboxUnmarshalCaddyfile(t *testing.T) {
	src := `legacy_sandbox {
		system      85
		capacity    40
		timetable   /etc/osdm/timetable.zip stop_id
		foreign     462 80 1080
		foreign     ICE5 81 1081
		latency     250ms
		tariff      1 100%
		tariff      7 35
		fare        2 1 12.90
		fare        1 3 99
		currency    CHF
		cancel_fee  0%
		offer_ttl   10m
		retention   1h
		max_entries 500
		max_body    16KiB
	}`
	zero := 0
	want := &LegacySandbox{
		System: 85, Capacity: 40, Timetable: "/etc/osdm/timetable.zip", StationCode: "stop_id",
		Foreign:          []legacysandbox.Foreign{{Train: "462", System: 80, Operator: "1080"}, {Train: "ICE5", System: 81, Operator: "1081"}},
		Latency:          caddy.Duration(250 * time.Millisecond),
		Tariffs:          []LegacySandboxTariff{{Code: 1, Percent: 100}, {Code: 7, Percent: 35}},
		Fares:            []legacysandbox.Fare{{TravelClass: 2, ServiceCode: 1, Cents: 1290}, {TravelClass: 1, ServiceCode: 3, Cents: 9900}},
		Currency:         "CHF",
		CancelFeePercent: &zero,
		OfferTTL:         caddy.Duration(10 * time.Minute), Retention: caddy.Duration(time.Hour),
		MaxEntries: 500, MaxBody: 16 << 10,
	}
	harness.CheckUnmarshal(t, src, new(LegacySandbox), want)
	checkBareDirective[LegacySandbox](t, "legacy_sandbox")
}

func TestLegacySandboxUnmarshalCaddyfileErrors(t *testing.T) {
	harness.CheckRefusals(t, "legacy_sandbox", func() caddyfile.Unmarshaler { return new(LegacySandbox) }, []harness.Refusal{
		{"seats 12", `unrecognized subdirective "seats"`},
		{"capacty 12", `unrecognized subdirective "capacty"; did you mean "capacity"?`},
		{"system 85\nsystem 87", "system already specified"},
		{"system 0", `system "0" must be a number 1..9999`},
		{"system SBB", "system"},
		{"capacity", "wrong argument count"},
		{"capacity 10001", "must be a number 1..10000"},
		{"timetable", "wrong argument count"},
		{"timetable a.zip stop_name", "must be stop_code or stop_id"},
		{"timetable a.zip\ntimetable b.zip", "timetable already specified"},
		{"foreign 462 80", "wrong argument count"},
		{"foreign 462 eighty 1080", "reservation system"},
		{"foreign 462 80 108", "operator"},
		{"foreign 462123 80 1080", "1..5 letters or digits"},
		{"foreign 462 80 1080\nforeign 462 81 1081", "foreign train 462 already specified"},
		{"latency soon", "latency"},
		{"latency 0s", "must be positive"},
		{"latency 6m", "at most 5m"},
		{"tariff 1", "wrong argument count"},
		{"tariff x 100%", "tariff code"},
		{"tariff 1 lots", "percentage"},
		{"tariff 1 +50%", `tariff 1: "+50%" must be a percentage 0%..1000%`},
		{"cancel_fee +5", `cancel_fee "+5" must be a percentage 0%..100%`},
		{"tariff 1 100%\ntariff 1 50%", "tariff 1 already specified"},
		{"fare 3 1 10", "travel class"},
		{"fare 1 4 10", "service code"},
		{"fare 1 1 ten", "decimal"},
		{"fare 1 1 10\nfare 1 1 11", "fare 1 1 already specified"},
		{"fare 1 1 12.50\ncurrency JPY", "fare 1 1 in JPY: amount \"12.50\" must be a whole number"},
		{"fare 1 1 12.345", "fare 1 1 in EUR: amount \"12.345\" must be a decimal with at most 2 decimals"},
		{"currency eur", "currency"},
		{"cancel_fee 101%", "cancel_fee"},
		{"offer_ttl -1m", "must be positive"},
		{"max_entries 0", "max_entries"},
		{"max_body 2MiB", "max_body"},
	})
}

// A fare is read in the currency's minor units, whichever comes first:
// 1200 yen, 12.345 dinars.
func TestLegacySandboxFareInTheCurrency(t *testing.T) {
	harness.CheckUnmarshal(t, "legacy_sandbox {\n\tfare 2 1 1200\n\tcurrency JPY\n}", new(LegacySandbox),
		&LegacySandbox{Fares: []legacysandbox.Fare{{TravelClass: 2, ServiceCode: 1, Cents: 1200}}, Currency: "JPY"})
	harness.CheckUnmarshal(t, "legacy_sandbox {\n\tcurrency KWD\n\tfare 2 1 12.345\n}", new(LegacySandbox),
		&LegacySandbox{Fares: []legacysandbox.Fare{{TravelClass: 2, ServiceCode: 1, Cents: 12345}}, Currency: "KWD"})
}

// A Caddyfile with a bad legacy_sandbox subdirective fails to adapt,
// naming the file and the line.
func TestLegacySandboxCaddyfileAdaptErrorNamesFileAndLine(t *testing.T) {
	for _, tc := range []struct{ cf, line, what string }{
		{"http://127.0.0.1:8090 {\n\tlegacy_sandbox {\n\t\tcapacity 40\n\t\tseats 12\n\t}\n}\n", "Caddyfile:4", `"seats"`},
		{"http://127.0.0.1:8090 {\n\troute {\n\t\tlegacy_sandbox {\n\t\t\tforeign 462 80 10800\n\t\t}\n\t}\n}\n", "Caddyfile:4", "operator"},
		// A fare the currency written after it refuses is refused at the
		// fare's line, not at the end of the block.
		{"http://127.0.0.1:8090 {\n\tlegacy_sandbox {\n\t\tfare 2 1 12.50\n\t\tcapacity 40\n\t\tcurrency JPY\n\t}\n}\n", "Caddyfile:3", `fare 2 1 in JPY: amount "12.50"`},
	} {
		harness.CheckAdaptRefused(t, tc.cf, tc.line, tc.what)
	}
}

// The adapted JSON carries what was written, and legacy_sandbox needs no
// order line.
func TestLegacySandboxCaddyfileAdaptJSON(t *testing.T) {
	harness.CheckAdaptedJSON(t, `http://127.0.0.1:8090 {
	legacy_sandbox {
		system 85
		capacity 40
		foreign 462 80 1080
		latency 1s
		cancel_fee 5%
	}
}
`, `{"cancel_fee_percent":5,"capacity":40,"foreign":[{"operator":"1080","system":80,"train":"462"}],"handler":"legacy_sandbox","latency":1000000000,"system":85}`)
}
