package converter

import (
	"net/url"
	"strings"
)

// Every value the converter puts into an OSDM path is one path segment:
// the legacy BookingRef of a CancelRequest, and the booking and refund
// offer ids the partner answered. url.PathEscape (osdm.ExpandPath) keeps
// "." and ".." as they are, and a partner, or a proxy in front of it, that
// normalises paths (RFC 3986 section 5.2.4) or decodes %2F or %2E before
// routing would turn GET /bookings/.. into GET / and POST
// /bookings/../refund-offers into POST /refund-offers. Such a value is
// refused before any OSDM call: a legacy one as INVALID_MESSAGE, a
// partner's one as a failed call that is never made.

// maxUnescapes is how many rounds of percent-decoding unsafeSegment
// undoes: a chain of proxies may decode more than once.
const maxUnescapes = 3

// unsafeSegment says why s cannot be one segment of an OSDM path, or ""
// when it can: a dot segment ("." or ".."), or a "/" or "\" that would
// split it, as written or percent-encoded (%2e%2E, %2F, %252F, ...).
func unsafeSegment(s string) string {
	d := s
	for i := 0; i < maxUnescapes && strings.IndexByte(d, '%') >= 0; i++ {
		u, err := url.PathUnescape(d)
		if err != nil || u == d {
			break
		}
		d = u
		if isDotSegment(d) || strings.ContainsAny(d, `/\`) {
			break
		}
	}
	switch {
	case isDotSegment(s) || isDotSegment(d):
		return "is a dot segment (. or ..), which a partner or proxy that normalises paths resolves to another resource"
	case strings.ContainsAny(s, `/\`) || strings.ContainsAny(d, `/\`):
		return `holds a / or \ (as written or percent-encoded), which would make it more than one path segment`
	}
	return ""
}

func isDotSegment(s string) bool { return s == "." || s == ".." }
