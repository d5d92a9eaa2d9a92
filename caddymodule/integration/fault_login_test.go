package integration

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// faultLoginRefused is not one of the injector's faults: the login service
// answers an RFC 6749 invalid_grant, as it does to an identity token it
// does not accept (refuseLogins).
const faultLoginRefused faultKind = "invalid_grant"

// TestFaultLoginService fails the login service in front of each partner
// (one per grant form) while osdm_token needs a new access token: the
// partner has just refused the cached one with a 401. A login service that
// failed or could not be reached (503, reset, garbage, an answer cut off)
// is the retryable PARTNER_UNAVAILABLE, one that hangs past the route's
// timeout PARTNER_TIMEOUT, and one that refused the login (a 401, an
// invalid_grant: our configuration is wrong) AUTHENTICATION_FAILED. The
// reply says it was the login (or the access token), and quotes no token. The partner
// gets no call after the refused one, so nothing is booked, and a second
// message during the login backoff makes no second login call.
func TestFaultLoginService(t *testing.T) {
	warmSpec(t)
	cases := []struct {
		kind faultKind
		want legacy.Code
	}{
		{fault5xx, legacy.CodePartnerUnavailable},
		{faultReset, legacy.CodePartnerUnavailable},
		{faultGarbage, legacy.CodePartnerUnavailable},
		{faultTruncated, legacy.CodePartnerUnavailable},
		{faultHang, legacy.CodePartnerTimeout},
		{faultUnauthorized, legacy.CodeAuthenticationFailed},
		{faultLoginRefused, legacy.CodeAuthenticationFailed},
	}
	for _, partner := range []string{"alpine", "coastal"} {
		for _, tc := range cases {
			t.Run(partner+"/"+string(tc.kind), func(t *testing.T) {
				c := startExampleChainWith(t, chainOptions{edit: timeoutEdit(faultTimeout), loginTaps: true})
				tap, login := c.alpine, c.alpineLogin
				if partner == "coastal" {
					tap, login = c.coastal, c.coastalLogin
				}
				before := len(tap.sandboxBookings(t))
				tap.take()
				login.take()
				partnerFaults := injectFaults(t, tap)
				partnerFaults.set(faultRule{step: converter.StepOffers, kind: faultUnauthorized, times: 1},
					faultRule{step: converter.StepTripOffers, kind: faultUnauthorized, times: 1})
				var logins func() int
				if tc.kind == faultLoginRefused {
					logins = refuseLogins(login)
				} else {
					loginFaults := injectFaults(t, login)
					loginFaults.set(faultRule{step: stepLogin, kind: tc.kind})
					logins = func() int { return len(loginFaults.injectedFaults()) }
				}

				for i := range 2 {
					status, r := c.send(t, partner, legacy.XML, &legacy.BookingRequest{
						Header:  legacy.Header{MessageID: fmt.Sprintf("login-%s-%s-%d", partner, tc.kind, i)},
						Journey: journeyOn("9203"), Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
					})
					nr := must[*legacy.NegativeReply](t, status, r, tc.want.HTTPStatus())
					if nr.Code != tc.want || nr.Retryable != tc.want.Retryable() || nr.BookingRef != "" {
						t.Fatalf("message %d: %s retryable %v BookingRef %q (%s), want %s naming no booking",
							i, nr.Code, nr.Retryable, nr.BookingRef, nr.Text, tc.want)
					}
					// A hung login is cut short by the route's timeout
					// before the login fails: "getting an access token from
					// its login service".
					if !strings.Contains(nr.Text, "login") && !strings.Contains(nr.Text, "access token") || strings.Contains(nr.Text, "eyJ") {
						t.Errorf("message %d: text %q does not name the login, or quotes a token", i, nr.Text)
					}
				}
				if ex := tap.take(); len(ex) != 0 {
					t.Errorf("the partner got %d calls besides the refused one: %v", len(ex), ex[0].Method+" "+ex[0].Path)
				}
				if got := len(partnerFaults.injectedFaults()); got != 1 {
					t.Errorf("the partner refused %d calls, want the first only", got)
				}
				// The login service was asked once: during the backoff
				// (or while the hung login runs) the second message waits
				// for or reuses that login's failure.
				if got := logins(); got != 1 {
					t.Errorf("%d login calls, want exactly one", got)
				}
				if after := len(tap.sandboxBookings(t)); after != before {
					t.Errorf("the partner's bookings went from %d to %d", before, after)
				}
			})
		}
	}
}

// refuseLogins makes the login service behind login answer every token
// request with a 400 invalid_grant, and returns how many it refused.
func refuseLogins(login *partnerTap) func() int {
	var n atomic.Int32
	login.mu.Lock()
	login.intercept = func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"client suspended (injected)"}`))
		return true
	}
	login.mu.Unlock()
	return func() int { return int(n.Load()) }
}
