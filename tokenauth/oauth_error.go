package tokenauth

import "net/http"

// RFC 6749 section 5.2 error codes, plus server_error and
// temporarily_unavailable from section 4.1.2.1.
const (
	ErrCodeInvalidRequest         = "invalid_request"
	ErrCodeInvalidClient          = "invalid_client"
	ErrCodeInvalidGrant           = "invalid_grant"
	ErrCodeUnauthorizedClient     = "unauthorized_client"
	ErrCodeUnsupportedGrantType   = "unsupported_grant_type"
	ErrCodeInvalidScope           = "invalid_scope"
	ErrCodeServerError            = "server_error"
	ErrCodeTemporarilyUnavailable = "temporarily_unavailable"
)

// OAuthError is an RFC 6749 section 5.2 error, as a login service answers
// it. Description is written for the consumer's operator and never holds a
// token.
type OAuthError struct {
	// Code is the RFC 6749 error code, e.g. invalid_grant.
	Code string `json:"error"`
	// Description says what was wrong and what to do about it.
	Description string `json:"error_description,omitempty"`
}

// Error implements error.
func (e *OAuthError) Error() string {
	if e.Description == "" {
		return e.Code
	}
	return e.Code + ": " + e.Description
}

// HTTPStatus is the status a login service answers this error with:
// 401 for invalid_client (RFC 6749 section 5.2), 503 for server-side
// outages (server_error, temporarily_unavailable) so clients retry later,
// 400 otherwise.
func (e *OAuthError) HTTPStatus() int {
	switch e.Code {
	case ErrCodeInvalidClient:
		return http.StatusUnauthorized
	case ErrCodeServerError, ErrCodeTemporarilyUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}
