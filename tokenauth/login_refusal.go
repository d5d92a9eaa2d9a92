package tokenauth

import (
	"fmt"
	"strings"
)

// RefusalReason is the stable, low-cardinality name of why a login service
// refused a token request. It labels metrics and log lines; the consumer
// sees the RFC 6749 error code and description instead.
type RefusalReason string

// The reasons a token request is refused. The set is fixed so that metrics
// labelled with it stay bounded whatever a client sends.
const (
	ReasonMethodNotAllowed   RefusalReason = "method_not_allowed"
	ReasonContentType        RefusalReason = "bad_content_type"
	ReasonBodyTooLarge       RefusalReason = "body_too_large"
	ReasonMalformedRequest   RefusalReason = "malformed_request"
	ReasonUnsupportedGrant   RefusalReason = "unsupported_grant_type"
	ReasonAssertionTooLarge  RefusalReason = "assertion_too_large"
	ReasonMalformedAssertion RefusalReason = "malformed_assertion"
	ReasonAlgNotAllowed      RefusalReason = "alg_not_allowed"
	ReasonBadType            RefusalReason = "bad_typ"
	ReasonUnknownClient      RefusalReason = "unknown_client"
	ReasonUnknownKey         RefusalReason = "unknown_kid"
	ReasonKeyNotYetValid     RefusalReason = "key_not_yet_valid"
	ReasonKeyRetired         RefusalReason = "key_retired"
	ReasonBadSignature       RefusalReason = "bad_signature"
	ReasonMissingClaim       RefusalReason = "missing_claim"
	ReasonExpired            RefusalReason = "expired"
	ReasonNotYetValid        RefusalReason = "not_yet_valid"
	ReasonIssuedInFuture     RefusalReason = "issued_in_future"
	ReasonLifetimeTooLong    RefusalReason = "lifetime_too_long"
	ReasonBadAudience        RefusalReason = "bad_audience"
	ReasonBadIssuer          RefusalReason = "bad_issuer"
	ReasonBadScope           RefusalReason = "bad_scope"
	ReasonReplay             RefusalReason = "replay"
	ReasonReplayStoreFull    RefusalReason = "replay_store_full"
	ReasonReplayStoreError   RefusalReason = "replay_store_error"
	ReasonInternal           RefusalReason = "internal_error"
)

// Refusal is a refused token request: the RFC 6749 error the consumer gets,
// plus what the login service needs for its metrics and logs. It never
// holds the assertion.
type Refusal struct {
	// Reason is the metric label of the refusal.
	Reason RefusalReason
	// OAuth is the error answered to the consumer.
	OAuth OAuthError
	// Status overrides OAuth.HTTPStatus() when not zero (405, 413).
	Status int
	// Client is the subject of the request when it names a configured
	// client, and empty otherwise, so that it can label metrics.
	Client string
	// KeyID is the kid of the assertion when the client and key are known.
	KeyID string
}

// Error implements error.
func (r *Refusal) Error() string {
	return string(r.Reason) + ": " + r.OAuth.Error()
}

// Unwrap lets errors.As find the OAuthError.
func (r *Refusal) Unwrap() error { return &r.OAuth }

// HTTPStatus is the status the refusal is answered with.
func (r *Refusal) HTTPStatus() int {
	if r.Status != 0 {
		return r.Status
	}
	return r.OAuth.HTTPStatus()
}

func refuse(reason RefusalReason, code, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, OAuth: OAuthError{Code: code, Description: fmt.Sprintf(format, args...)}}
}

// quoteInput quotes a value taken from a request for an error description,
// cut short so that a client cannot make the service echo large input.
func quoteInput(s string) string {
	const maxLen = 64
	if len(s) > maxLen {
		s = s[:maxLen] + "..."
	}
	return fmt.Sprintf("%q", strings.ToValidUTF8(s, "?"))
}
