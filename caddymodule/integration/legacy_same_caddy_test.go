package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestOSDMLegacyIntegrationSameCaddy runs the whole reverse chain in one
// Caddy: an OSDM client -> osdm_legacy -> reverse_proxy -> legacy_sandbox
// on another site of the same Caddy, both reading the same GTFS feed, and
// the legacy messages in JSON.
func TestOSDMLegacyIntegrationSameCaddy(t *testing.T) {
	dir := t.TempDir()
	gtfs := harness.LegacyGTFS(t, dir)
	legacyPort := harness.FreePort(t)
	base := harness.Serve(t, func(port int) string {
		return harness.Options() + harness.Site(port, harness.LegacyRoute("/osdm", fmt.Sprintf("127.0.0.1:%d", legacyPort),
			"partner hermes-same", "timetable "+gtfs, "legacy_format json", "legacy_path /hermes", "store bolt "+filepath.Join(dir, "s.db"))) + harness.Site(legacyPort, fmt.Sprintf(`
	legacy_sandbox {
		timetable %s
		foreign 9305 80 1080
	}
`, gtfs))
	})
	body := strings.Replace(harness.OfferSearch("", harness.TravelDay+"T07:00:00+01:00", `"SECOND", "FIRST"`), `"departureTime": "`+harness.TravelDay+`T07:00:00+01:00"`,
		`"departureTime": "`+harness.TravelDay+`T07:00:00+01:00", "parameters": {"numberOfResultsAfter": 3}`, 1)
	c := harness.OSDMClient{Base: base + "/osdm", Version: osdmspec.V310, Header: harness.SecretHeader()}
	a := c.Do(t, http.MethodPost, "/offers", body, nil)
	status, got := a.Status, a.Body
	var resp osdm.OfferCollectionResponse
	if err := json.Unmarshal(got, &resp); err != nil || status != 200 {
		t.Fatalf("%d %s", status, got)
	}
	// 07:10 (9302), 08:10 (9303), 09:10 (9304) in two classes each.
	if len(resp.Trips) != 3 || len(resp.Offers) != 6 {
		t.Fatalf("%d trips, %d offers: %s", len(resp.Trips), len(resp.Offers), got)
	}
	for i, tr := range resp.Trips {
		leg := tr.Legs[0].TimedLeg
		if leg.Start.StopPlaceName != "Paris Nord" || leg.End.StopPlaceName != "Bruxelles-Midi" ||
			leg.Service.VehicleNumbers[0] != fmt.Sprint(9302+i) || tr.EndTime.Sub(tr.StartTime) != 82*time.Minute {
			t.Errorf("trip %d: %+v", i, tr)
		}
	}
	// The train of another system, named.
	a = c.Do(t, http.MethodPost, "/offers", harness.OfferSearch(`"9305"`, harness.TravelDay+"T07:00:00+01:00", `"SECOND"`), nil)
	status, got = a.Status, a.Body
	resp = osdm.OfferCollectionResponse{}
	if err := json.Unmarshal(got, &resp); err != nil || status != 200 || len(resp.Problems) != 1 || !resp.Problems[0].IsAlternativeSystemProposal() {
		t.Fatalf("%d %s", status, got)
	}
}
