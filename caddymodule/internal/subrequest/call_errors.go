package subrequest

import "errors"

// The errors of the handlers of an OSDM call (osdm_token, osdm_access) that
// osdm_convert tells apart from the partner's answers (classifyCallError).

// ErrLoginWait marks a request that got no access token because waiting
// for the login service ended (the request's deadline), not because the
// login failed.
var ErrLoginWait = errors.New("getting an access token from its login service")

// ErrNoOSDMTransport is the failure of a request whose credential no
// transport added.
var ErrNoOSDMTransport = errors.New("the reverse_proxy after it has no `transport osdm`, " +
	"so the token was not sent: add `transport osdm` to that reverse_proxy's block")
