package legacy

import (
	"mime"
	"strings"
)

// Format is the wire form of a legacy message.
type Format int

// The two forms of legacy-protocol.md.
const (
	XML Format = iota + 1
	JSON
)

// String returns "XML" or "JSON".
func (f Format) String() string {
	switch f {
	case XML:
		return "XML"
	case JSON:
		return "JSON"
	}
	return "unknown format"
}

// ContentType is the Content-Type of a message written in f.
func (f Format) ContentType() string {
	if f == JSON {
		return "application/json"
	}
	return "application/xml; charset=utf-8"
}

// FormatOf returns the Format a Content-Type selects: application/xml or
// text/xml select XML, application/json selects JSON, with any parameters;
// a charset parameter must be utf-8 or us-ascii. Anything else is an *Error
// wrapping ErrMediaType (HTTP 415).
func FormatOf(contentType string) (Format, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || (mt != "application/xml" && mt != "text/xml" && mt != "application/json") {
		return 0, &Error{
			Code: CodeInvalidMessage, Field: "Content-Type", Err: ErrMediaType,
			Rule: "must be application/xml, text/xml or application/json, not " + quoteShort(contentType),
		}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
		return 0, &Error{
			Code: CodeInvalidMessage, Field: "Content-Type", Err: ErrMediaType,
			Rule: "charset must be utf-8, not " + quoteShort(cs),
		}
	}
	if mt == "application/json" {
		return JSON, nil
	}
	return XML, nil
}
