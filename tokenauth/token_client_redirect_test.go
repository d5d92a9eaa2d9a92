package tokenauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTokenClientFollowsNoRedirect: a login service that answers the
// token request with a redirect (307 and 308 resend the body, the
// identity token in it, to wherever Location says; the others make it a
// GET) does not get us to send anything there: the identity token would
// be, unused, at a host that is not the login service, which could trade
// it for an access token in our name. The login fails, saying so, with
// the client the caller gave and with the default one.
func TestTokenClientFollowsNoRedirect(t *testing.T) {
	elsewhere := &loginStub{status: 200, body: `{"access_token":"at-elsewhere","token_type":"Bearer","expires_in":60}`}
	other := httptest.NewServer(elsewhere)
	defer other.Close()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound, http.StatusSeeOther, http.StatusMovedPermanently} {
		for _, own := range []bool{false, true} {
			t.Run(strconv.Itoa(status)+map[bool]string{false: " default client", true: " own client"}[own], func(t *testing.T) {
				login := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other.URL+"/oauth/token", status)
				}))
				defer login.Close()
				testKeys(t)
				s, err := NewIdentitySigner(testIdentityConfig(), testEC["P-256"], nil)
				if err != nil {
					t.Fatal(err)
				}
				cfg := TokenClientConfig{Partner: "sncf", TokenURL: login.URL + "/oauth/token", Signer: s}
				if own {
					cfg.HTTPClient = &http.Client{Timeout: 5 * time.Second}
				}
				c, err := NewTokenClient(cfg)
				if err != nil {
					t.Fatal(err)
				}
				tok, err := c.Token(context.Background())
				var le *LoginError
				if tok != nil || !errors.As(err, &le) || le.Status != status || !strings.Contains(le.Description, "redirect") {
					t.Errorf("token %+v, error %v; want a LoginError of status %d naming the redirect", tok, err, status)
				}
				elsewhere.mu.Lock()
				defer elsewhere.mu.Unlock()
				if n := len(elsewhere.requests); n != 0 {
					t.Errorf("the redirect's target got %d request(s): %+v", n, elsewhere.requests)
				}
				elsewhere.requests = nil
			})
		}
	}
}
