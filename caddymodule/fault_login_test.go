package caddymodule

import (
	"fmt"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/converter/legacy"
)

// TestFaultLoginService fails the login service in front of each partner
// (one per grant form) while osdm_token needs a new access token: the
// partner has just refused the cached one with a 401. The legacy reply is
// AUTHENTICATION_FAILED (PARTNER_TIMEOUT for a login that hangs past the
// route's timeout), the partner gets no call after the refused one, so
// nothing is booked, and a second message during the login backoff makes
// no second login call.
func TestFaultLoginService(t *testing.T) {
	warmSpec(t)
	for _, partner := range []string{"alpine", "coastal"} {
		for _, kind := range []faultKind{fault5xx, faultHang, faultGarbage, faultReset, faultTruncated} {
			t.Run(partner+"/"+string(kind), func(t *testing.T) {
				c := startExampleChainWith(t, chainOptions{edit: timeoutEdit(faultTimeout), loginTaps: true})
				tap, login := c.alpine, c.alpineLogin
				if partner == "coastal" {
					tap, login = c.coastal, c.coastalLogin
				}
				before := len(tap.sandboxBookings(t))
				tap.take()
				login.take()
				partnerFaults, loginFaults := injectFaults(t, tap), injectFaults(t, login)
				partnerFaults.set(faultRule{step: converter.StepOffers, kind: faultUnauthorized, times: 1},
					faultRule{step: converter.StepTripOffers, kind: faultUnauthorized, times: 1})
				loginFaults.set(faultRule{step: stepLogin, kind: kind})

				want := legacy.CodeAuthenticationFailed
				if kind == faultHang {
					want = legacy.CodePartnerTimeout
				}
				for i := range 2 {
					status, r := c.send(t, partner, legacy.XML, &legacy.BookingRequest{
						Header:  legacy.Header{MessageID: fmt.Sprintf("login-%s-%s-%d", partner, kind, i)},
						Journey: journeyOn("9203"), Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
					})
					nr := must[*legacy.NegativeReply](t, status, r, want.HTTPStatus())
					if nr.Code != want || nr.BookingRef != "" {
						t.Fatalf("message %d: %s BookingRef %q (%s), want %s naming no booking", i, nr.Code, nr.BookingRef, nr.Text, want)
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
				if got := loginFaults.injectedFaults(); len(got) != 1 {
					t.Errorf("login calls %v, want exactly one", got)
				}
				if after := len(tap.sandboxBookings(t)); after != before {
					t.Errorf("the partner's bookings went from %d to %d", before, after)
				}
			})
		}
	}
}
