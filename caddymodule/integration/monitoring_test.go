package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestMonitoringRulesAndDashboard scrapes a running Caddyfile.example with
// a real Prometheus (Debian's prometheus and promtool), after bookings in
// both directions and a held booking: every metric the Grafana dashboard
// and the alerting rules of monitoring/ name is in the scrape, every
// dashboard query evaluates (promtool query instant), and every rule
// loads and evaluates in Prometheus without error.
func TestMonitoringRulesAndDashboard(t *testing.T) {
	for _, tool := range []string{"prometheus", "promtool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install prometheus): test skipped", tool)
		}
	}
	rules, _ := filepath.Abs(filepath.Join("..", "..", "monitoring", "alerts.yml"))
	if out, err := exec.Command("promtool", "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	exprs := dashboardQueries(t)
	ruleExprs := ruleQueries(t, rules)

	adminPort := harness.FreePort(t)
	c := startExampleChainWith(t, chainOptions{edit: func(s string) string {
		return strings.Replace(s, "admin localhost:2019", fmt.Sprintf("admin 127.0.0.1:%d", adminPort), 1)
	}})
	journey := journeyOn("9203")
	places := secondClassSeats(legacy.Tariff{Code: 1, Count: 1})
	for _, partner := range []string{"alpine", "hermes"} {
		status, r := c.send(t, partner, legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "mon-" + partner + "-a"}, Journey: journey, Places: places})
		av := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
		status, r = c.send(t, partner, legacy.XML, &legacy.BookingRequest{
			Header: legacy.Header{MessageID: "mon-" + partner + "-b"}, Journey: journey, Places: places,
			OfferRef: av.Offers[0].OfferRef, Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Muller"}},
		})
		must[*legacy.BookingReply](t, status, r, http.StatusOK)
	}
	holdAtHermes(t, c, journey.DepartureDate)
	adminDo(t, http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/osdm/settle", adminPort), http.StatusOK, nil) // counts the backlog now

	dir := t.TempDir()
	promPort := harness.FreePort(t)
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: [%q]\nscrape_configs:\n  - job_name: caddy\n    static_configs:\n      - targets: [\"127.0.0.1:%d\"]\n", rules, adminPort)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	prom := exec.Command("prometheus", "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", promPort))
	var promOut strings.Builder
	prom.Stdout, prom.Stderr = &promOut, &promOut
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prom.Process.Kill(); prom.Wait() })
	api := fmt.Sprintf("http://127.0.0.1:%d", promPort)

	// Every metric named is in the scrape.
	var want []string
	for _, e := range append(slices.Clone(exprs), ruleExprs...) {
		for _, m := range regexp.MustCompile(`caddy_osdm_[a-z_]+`).FindAllString(e, -1) {
			if !slices.Contains(want, m) {
				want = append(want, m)
			}
		}
	}
	var missing []string
	for deadline := time.Now().Add(60 * time.Second); ; {
		names := promNames(api)
		missing = missing[:0]
		for _, m := range want {
			if !slices.Contains(names, m) {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if len(missing) > 0 {
		t.Fatalf("metrics the dashboard or the rules name that the scrape does not have: %v\n%s", missing, promOut.String())
	}

	// Every dashboard query evaluates.
	for _, e := range exprs {
		if out, err := exec.Command("promtool", "query", "instant", api, e).CombinedOutput(); err != nil {
			t.Errorf("dashboard query %s: %v\n%s", e, err, out)
		}
	}
	// Every rule evaluates in Prometheus.
	for deadline := time.Now().Add(30 * time.Second); ; {
		health := promRuleHealth(t, api)
		ok := len(health) == len(ruleExprs)
		for name, h := range health {
			if h != "ok" {
				ok = false
				if h == "err" {
					t.Fatalf("rule %s does not evaluate: %v", name, health)
				}
			}
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rules not all evaluated: %v", health)
		}
		time.Sleep(time.Second)
	}
}

// dashboardQueries returns every query of monitoring/grafana-dashboard.json.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(harness.ReadFiles(t, filepath.Join("..", "..", "monitoring", "grafana-dashboard.json")), &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	if len(out) < 8 {
		t.Fatalf("the dashboard has %d queries", len(out))
	}
	return out
}

// ruleQueries returns the expr of every rule in the rules file (one line
// each, as monitoring/alerts.yml writes them).
func ruleQueries(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(string(harness.ReadFiles(t, path)), "\n") {
		if e, ok := strings.CutPrefix(strings.TrimSpace(line), "expr: "); ok {
			out = append(out, e)
		}
	}
	return out
}

// promNames returns the metric names Prometheus has.
func promNames(api string) []string {
	resp, err := http.Get(api + "/api/v1/label/__name__/values")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var v struct{ Data []string }
	json.NewDecoder(resp.Body).Decode(&v)
	return v.Data
}

// promRuleHealth returns each rule's health ("ok", "err", "unknown").
func promRuleHealth(t *testing.T, api string) map[string]string {
	t.Helper()
	out := map[string]string{}
	resp, err := http.Get(api + "/api/v1/rules")
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	var v struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name, Health, LastError string
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	for _, g := range v.Data.Groups {
		for _, r := range g.Rules {
			out[r.Name] = r.Health
			if r.LastError != "" {
				out[r.Name] = "err"
				t.Logf("rule %s: %s", r.Name, r.LastError)
			}
		}
	}
	return out
}
