package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// site wraps directive lines in a site block; the first directive line is
// line 2 of the Caddyfile.
func site(lines string) string { return ":9443 {\n" + lines + "\n}\n" }

// TestCaddyfileErrorsNameTheLineAndTheFix: config that was wrong but
// loaded: a passenger type that is not OSDM's, at the
// tariff line, with the closest value; an unknown subdirective in every
// module, with the closest known one; a bad path template at the path
// line; and osdm_access without audience (item 6).
func TestCaddyfileErrorsNameTheLineAndTheFix(t *testing.T) {
	cases := []struct {
		name string
		cf   string
		want []string
	}{
		{"tariff ADLT", site("\tosdm_convert {\n\t\tpartner p\n\t\ttariff 1 ADLT 30\n\t}"),
			[]string{"Caddyfile:4", `tariff 1: "ADLT" is not an OSDM passenger type; did you mean "ADULT"?`}},
		{"tariff far from any type", site("\tosdm_convert {\n\t\tpartner p\n\t\ttariff 1 GROWNUP 30\n\t}"),
			[]string{"Caddyfile:4", `"GROWNUP" is not an OSDM passenger type (known: YOUNG_CHILD, CHILD`}},
		{"bad path template", site("\tosdm_convert {\n\t\tpartner p\n\t\ttimeout 5s\n\t\tpath refund_offers /bookings/{id}/refundOffers\n\t}"),
			[]string{"Caddyfile:5", "path refund_offers", "{id}"}},
		{"convert typo", site("\tosdm_convert {\n\t\tpartner p\n\t\ttarif 1 ADULT 30\n\t}"),
			[]string{"Caddyfile:4", `unrecognized subdirective "tarif"; did you mean "tariff"?`}},
		{"token typo", site("\tosdm_token {\n\t\ttoken_url https://login.example/oauth/token\n\t\tisuer x\n\t}"),
			[]string{"Caddyfile:4", `did you mean "issuer"?`}},
		{"login typo", site("\tosdm_login {\n\t\tsigning_key_file /x.pem\n\t\taudiance x\n\t}"),
			[]string{"Caddyfile:4", `did you mean "audience"?`}},
		{"login client typo", site("\tosdm_login {\n\t\tclient a {\n\t\t\tscop x\n\t\t}\n\t}"),
			[]string{"Caddyfile:4", `unrecognized client subdirective "scop"; did you mean "scope"?`}},
		{"access typo", site("\tosdm_access {\n\t\taudiance x\n\t}"),
			[]string{"Caddyfile:3", `did you mean "audience"?`}},
		{"sandbox typo", site("\tosdm_sandbox {\n\t\tcapacty 3\n\t}"),
			[]string{"Caddyfile:3", `did you mean "capacity"?`}},
		{"no suggestion for a stranger", site("\tosdm_access {\n\t\tfrobnicate x\n\t}"),
			[]string{"Caddyfile:3", `unrecognized subdirective "frobnicate" (known: key_file, issuer, audience`}},
		{"access without audience", site("\troute {\n\t\tosdm_access {\n\t\t\tissuer https://login.example\n\t\t}\n\t\trespond ok\n\t}"),
			[]string{"Caddyfile:3", "osdm_access: audience is required"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := harness.TryAdapt("Caddyfile", tc.cf)
			if err == nil {
				t.Fatalf("adapted without error:\n%s", tc.cf)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestTokenPartnerFromRouteConvert: an osdm_token without partner takes,
// at adapt time, the partner of the osdm_convert before it in the same
// route, so two partners whose login services share a host are told
// apart; one with its own partner keeps it; one before
// the osdm_convert of its route is an error naming its line.
func TestTokenPartnerFromRouteConvert(t *testing.T) {
	route := func(path, partner, tokenPartner string, port int) string {
		tp := ""
		if tokenPartner != "" {
			tp = "\n\t\t\tpartner " + tokenPartner
		}
		return fmt.Sprintf(`	route %s {
		osdm_convert {
			partner %s
		}
		osdm_token {
			token_url http://127.0.0.1:%d/oauth/token
			key_file /tmp/k.pem
			kid k
			issuer https://rail.example
			subject rail%s
		}
		reverse_proxy 127.0.0.1:%d
	}
`, path, partner, port, tp, port)
	}
	cf := ":8080 {\n" + route("/a", "alpine", "", 9441) + route("/b", "coastal", "", 9441) + route("/c", "gamma", "gamma-login", 9441) +
		"\troute /d {\n\t\tosdm_token {\n\t\t\ttoken_url http://127.0.0.1:9441/oauth/token\n\t\t\tkey_file /tmp/k.pem\n\t\t\tkid k\n\t\t\tissuer i\n\t\t\tsubject s\n\t\t}\n\t\treverse_proxy 127.0.0.1:9441\n\t}\n}\n"
	out := harness.Adapt(t, "Caddyfile", cf)
	var partners []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["handler"] == "osdm_token" {
				p, _ := v["partner"].(string)
				partners = append(partners, p)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var cfg any
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	walk(cfg)
	want := map[string]bool{"alpine": true, "coastal": true, "gamma-login": true, "": true}
	if len(partners) != 4 {
		t.Fatalf("osdm_token partners %q", partners)
	}
	for _, p := range partners {
		if !want[p] {
			t.Errorf("osdm_token partner %q; want the route's osdm_convert partner, its own, or none", p)
		}
		delete(want, p)
	}

	// osdm_token without partner before the osdm_convert of its route.
	bad := ":8080 {\n\troute {\n\t\tosdm_token {\n\t\t\ttoken_url http://127.0.0.1:9441/oauth/token\n\t\t\tkey_file /tmp/k.pem\n\t\t\tkid k\n\t\t\tissuer i\n\t\t\tsubject s\n\t\t}\n" +
		"\t\tosdm_convert {\n\t\t\tpartner alpine\n\t\t}\n\t}\n}\n"
	if err := harness.TryAdapt("Caddyfile", bad); err == nil || !strings.Contains(err.Error(), "osdm_token at Caddyfile:3 has no partner") {
		t.Fatalf("token before convert: %v", err)
	}
}
