package osdmspec

import (
	"errors"
	"net/url"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// kin-openapi checks only the formats it knows (date, date-time, byte, int32,
// int64) and silently accepts any value for the others. The OSDM spec also
// uses uuid (the Idempotency-Key header), duration, and uri/url (among them
// Problem.type and Problem.instance). These document-scoped validators make
// those bite too; float and double need nothing beyond the number type.
func registerFormats(doc *openapi3.T) {
	doc.SetStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562))
	doc.SetStringFormatValidator("duration", openapi3.NewCallbackValidator(isoDuration))
	doc.SetStringFormatValidator("uri", openapi3.NewCallbackValidator(absoluteURI))
	doc.SetStringFormatValidator("url", openapi3.NewCallbackValidator(absoluteURI))
}

// isoDurationSyntax is the ISO 8601 duration syntax (PnYnMnDTnHnMnS, PnW)
// that JSON Schema's "duration" format names.
var isoDurationSyntax = regexp.MustCompile(`^P(?:(?:\d+(?:[.,]\d+)?Y)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?D)?(?:T(?:\d+(?:[.,]\d+)?H)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?S)?)?|\d+W)$`)

func isoDuration(s string) error {
	// "P" and "PT" match the optional-everything syntax but carry no value.
	if !isoDurationSyntax.MatchString(s) || s == "P" || strings.HasSuffix(s, "T") {
		return errors.New("not an ISO 8601 duration such as PT15M")
	}
	return nil
}

// absoluteURI implements the JSON Schema "uri" format: an RFC 3986 URI with
// a scheme ("about:blank", "https://osdm.io/errors/..."). A relative
// reference such as "/bookings/1" is a uri-reference, not a uri.
func absoluteURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme == "" {
		return errors.New("not an absolute URI (no scheme)")
	}
	return nil
}
