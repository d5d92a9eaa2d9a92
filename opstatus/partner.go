package opstatus

import "time"

// Partner is one partner route as its handlers see it: the access token
// osdm_token keeps for it and the calls osdm_convert makes on it.
type Partner struct {
	// Partner is the partner's name in the configuration.
	Partner string `json:"partner"`
	// Token describes the access token (never the token itself); nil
	// where the route has no osdm_token.
	Token *Token `json:"token,omitempty"`
	// Calls describes the legacy exchanges on the route; nil where it
	// has no osdm_convert.
	Calls *Calls `json:"calls,omitempty"`
}

// Token describes a partner's cached access token and its logins.
type Token struct {
	// TokenURL is the login service's token endpoint.
	TokenURL string `json:"token_url"`
	// Obtained is when the current token was received (the last
	// refresh); zero before the first login.
	Obtained time.Time `json:"obtained,omitzero"`
	// Expires is when the current token expires.
	Expires time.Time `json:"expires,omitzero"`
	// RefreshAt is when a refresh in the background starts.
	RefreshAt time.Time `json:"refresh_at,omitzero"`
	// Valid reports a current token that has not expired.
	Valid bool `json:"valid"`
	// LastLoginError is the last failed login's error, until a login
	// succeeds; LastLoginErrorAt when it failed.
	LastLoginError   string    `json:"last_login_error,omitempty"`
	LastLoginErrorAt time.Time `json:"last_login_error_at,omitzero"`
	// Failures counts the failed logins since the last success.
	Failures int `json:"failures,omitempty"`
	// RetryAt is when the next login may be tried after failures.
	RetryAt time.Time `json:"retry_at,omitzero"`
}

// Calls describes the legacy exchanges osdm_convert made on a partner.
type Calls struct {
	// InFlight is the number of legacy messages being handled now.
	InFlight int64 `json:"in_flight"`
	// Total is the number handled since the configuration started.
	Total int64 `json:"total"`
	// LastError is the last partner failure (a 5xx, a timeout, a
	// partner that could not be reached) and LastErrorAt when it was.
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}
