package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func adapt(t *testing.T, src string) (map[string]any, error) {
	t.Helper()
	out, _, err := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}.Adapt([]byte(src), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg, nil
}

func TestCaddyfileGlobalOption(t *testing.T) {
	cfg, err := adapt(t, `{
	osdm {
		store main bolt /var/lib/caddy/osdm.db
		store shared redis {
			addresses 10.0.0.1:26379 10.0.0.2:26379
			master    bookings
			prefix    osdm:
			username  caddy
			password  {env.OSDM_REDIS_PASSWORD}
			db 2
			tls {
				ca /etc/redis/ca.pem
			}
			accept_volatile
			timeout 3s
		}
		store one redis 10.0.0.3:6379
		settle_interval 10s
	}
}
:8080 {
	respond ok
}
`)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(cfg["apps"].(map[string]any)["osdm"])
	want := `{"settle_interval":10000000000,"stores":{"main":{"engine":"bolt","path":"/var/lib/caddy/osdm.db"},"one":{"addresses":["10.0.0.3:6379"],"engine":"redis"},"shared":{"accept_volatile":true,"addresses":["10.0.0.1:26379","10.0.0.2:26379"],"db":2,"engine":"redis","master":"bookings","password":"{env.OSDM_REDIS_PASSWORD}","prefix":"osdm:","timeout":3000000000,"tls":{"ca":"/etc/redis/ca.pem"},"username":"caddy"}}}`
	if string(got) != want {
		t.Fatalf("apps.osdm =\n%s\nwant\n%s", got, want)
	}
}

func TestCaddyfileGlobalOptionErrors(t *testing.T) {
	for src, want := range map[string]string{
		"store main":          "Caddyfile:3: which engine",
		"store main sqlite":   `Caddyfile:3: store main: engine "sqlite" is unknown`,
		"store main bolt a b": "Caddyfile:3: store main bolt takes at most one path",
		"store r redis":       "Caddyfile:3: store r redis needs an address",
		"store r redis a:1 {\n\t\t\tmasters x\n\t\t}":                `Caddyfile:4: store r redis: unrecognized option "masters"; did you mean "master"?`,
		"store r redis a:1 {\n\t\t\tcluster x\n\t\t}":                `Caddyfile:4: store r redis: unrecognized option "cluster" (known: addresses, master, prefix, username, password, sentinel_password, db, tls, accept_volatile, timeout)`,
		"store a bolt\n\t\tstore a bolt":                             "Caddyfile:4: store a is defined twice",
		"settle_interval -1s":                                        "Caddyfile:3: settle_interval",
		"store bolt /x":                                              "Caddyfile:3: store bolt: bolt is an engine, not a store name",
		`store "" bolt`:                                              `Caddyfile:3: store "": a store needs a name`,
		"settle_every 1s":                                            `Caddyfile:3: unrecognized osdm option "settle_every" (known: store, settle_interval)`,
		"store r redis a:1 {\n\t\t\tdb x\n\t\t}":                     `Caddyfile:4: store r redis: db "x"`,
		"settle_interval 1s\n\t\tsettle_interval 2s":                 "Caddyfile:4: settle_interval already specified",
		"settle_intervall 1s":                                        `Caddyfile:3: unrecognized osdm option "settle_intervall"; did you mean "settle_interval"?`,
		"store r redis a:1 {\n\t\t\tprefix x\n\t\t\tprefix y\n\t\t}": "Caddyfile:5: store r redis: prefix already specified",
		"store r redis a:1 {\n\t\t\tmastr x\n\t\t}":                  `Caddyfile:4: store r redis: unrecognized option "mastr"; did you mean "master"?`,
		"store r redis {\n\t\t\taddresses a:1\n\t\t\taddresses b:1\n\t\t\ttls {\n\t\t\t\tca x\n\t\t\t\tca y\n\t\t\t}\n\t\t}": "Caddyfile:8: store r redis tls: ca already specified",
		"store b bolt {\n\t\t\ttimeout 1s\n\t\t\ttimeout 2s\n\t\t}":                                                          "Caddyfile:5: store b bolt: timeout already specified",
		"store b bolt {\n\t\t\ttimeot 1s\n\t\t}":                                                                             `Caddyfile:4: store b bolt: unrecognized option "timeot"; did you mean "timeout"?`,
	} {
		_, err := adapt(t, "{\n\tosdm {\n\t\t"+src+"\n\t}\n}\n:8080 {\n\trespond ok\n}\n")
		at, msg, _ := strings.Cut(want, ": ")
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasSuffix(err.Error(), "at "+at) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}
