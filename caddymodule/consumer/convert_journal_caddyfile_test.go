package consumer

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	dto "github.com/prometheus/client_model/go"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/converter"
)

// TestConvertCaddyfileStore: osdm_convert takes the shared store syntax
// and settle_interval; every mistake is an error naming what is wrong,
// and settle_every, an older name, one naming settle_interval.
func TestConvertCaddyfileStore(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  *storeconfig.Config
		every time.Duration
	}{
		{"store bolt", &storeconfig.Config{Engine: "bolt"}, 0},
		{"store bolt /var/lib/osdm/journal.db\n\tsettle_interval 30s", &storeconfig.Config{Engine: "bolt", Path: "/var/lib/osdm/journal.db"}, 30 * time.Second},
		{"store redis 10.0.0.7:6379 fare:", &storeconfig.Config{Engine: "redis", Address: "10.0.0.7:6379", Prefix: "fare:"}, 0},
		{"store main\n\tsettle_interval 10s", &storeconfig.Config{Name: "main"}, 10 * time.Second},
	} {
		var c Convert
		if err := harness.TryUnmarshal(&c, harness.Block("osdm_convert", "\tpartner p\n\t"+tc.block)); err != nil {
			t.Fatalf("%q: %v", tc.block, err)
		}
		if !reflect.DeepEqual(c.Store, tc.want) || time.Duration(c.SettleInterval) != tc.every {
			t.Errorf("%q: store %+v settle_interval %v", tc.block, c.Store, time.Duration(c.SettleInterval))
		}
	}
	for _, tc := range []struct{ block, want string }{
		{"store", "store takes a store name, bolt"},
		{"store memory x", "a store name takes no more arguments"},
		{"store redis", "store redis takes <address>"},
		{"store bolt a b", "at most one path"},
		{"store bolt\n\tstore bolt", "store already specified"},
		{"settle_interval never", `settle_interval "never"`},
		{"settle_interval 0s", `settle_interval "0s"`},
		{"settle_every 30s", `subdirective "settle_every" is no longer read: it is now settle_interval, at Testfile:3`},
		{"settle_interval -1s", `settle_interval "-1s"`},
	} {
		if err := harness.TryUnmarshal(new(Convert), harness.Block("osdm_convert", "\tpartner p\n\t"+tc.block)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.block, err, tc.want)
		}
	}
}

// TestConvertStoreDefaultAndShared: without a store subdirective the
// journal is a bolt file in Caddy's data directory; two routes naming the
// same file share it (bbolt locks the file, a second open would wait and
// fail).
func TestConvertStoreDefaultAndShared(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	a := convUnit(t, nil)
	if want := "bolt " + filepath.Join(caddy.AppDataDir(), "osdm", "store.db"); a.store.Where() != want {
		t.Errorf("default store %q, want %q", a.store.Where(), want)
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	b := convUnit(t, func(c *Convert) { c.Store = &storeconfig.Config{Engine: "bolt", Path: path}; c.Partner = "b" })
	c := convUnit(t, func(c *Convert) { c.Store = &storeconfig.Config{Engine: "bolt", Path: path}; c.Partner = "c" })
	if b.store.Where() != c.store.Where() {
		t.Errorf("two routes on one file: %q and %q", b.store.Where(), c.store.Where())
	}
	if _, err := b.store.Get(context.Background(), "nothing"); err == nil {
		t.Error("an empty store answered a key")
	}
}

// TestConvertSettlementMetric: what settlement finds is counted by
// partner, outcome and whether it is settled, next to its log line.
func TestConvertSettlementMetric(t *testing.T) {
	c := convUnit(t, nil)
	c.logSettled(converter.Settled{MessageID: "m-1", BookingID: "b-1", Outcome: "booking_rolled_back", Done: true})
	c.logSettled(converter.Settled{MessageID: "m-2", BookingID: "b-2", Outcome: "partner_unavailable", Done: false})
	c.logSettled(converter.Settled{MessageID: "m-2", BookingID: "b-2", Outcome: "partner_unavailable", Done: false})
	count := func(outcome, settled string) float64 {
		var m dto.Metric
		if err := c.metrics.settlements.WithLabelValues(c.Partner, outcome, settled).Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue()
	}
	if got := count("booking_rolled_back", "true"); got != 1 {
		t.Errorf("settled: %v", got)
	}
	if got := count("partner_unavailable", "false"); got != 2 {
		t.Errorf("not settled yet: %v", got)
	}
}
