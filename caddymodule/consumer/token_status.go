package consumer

import (
	"github.com/caddy-osdm/caddy-osdm/opstatus"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// tokenStatus describes a route's cached access token for the admin API
// (opstatus.PartnerSource): when it was obtained and expires, and the
// failed logins; never the token.
type tokenStatus struct {
	partner, tokenURL string
	cache             *tokenauth.TokenCache
	now               tokenauth.Clock // nil: time.Now
}

// Partner implements opstatus.PartnerSource.
func (s tokenStatus) Partner() opstatus.Partner {
	st := s.cache.State()
	tok := &opstatus.Token{
		TokenURL: s.tokenURL, Obtained: st.Obtained, Expires: st.Expires, RefreshAt: st.RefreshAt,
		Valid:    !st.Expires.IsZero() && s.now.Now().Before(st.Expires),
		Failures: st.Failures, RetryAt: st.RetryAt, LastLoginErrorAt: st.LastErrAt,
	}
	if st.LastErr != nil {
		tok.LastLoginError = st.LastErr.Error()
	}
	return opstatus.Partner{Partner: s.partner, Token: tok}
}
