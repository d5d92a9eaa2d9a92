package legacy

import (
	"fmt"
	"mime"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// Decode reads a legacy request from body in format f: an
// *AvailabilityRequest, *BookingRequest, *CancelRequest, *SynchroRequest,
// *PassengerDataRequest or *TicketRequest, validated by
// every rule of legacy-protocol.md except the route's tariff and reason
// tables. Any failure is an *Error: CodeUnsupportedMessage for a
// well-formed message of another kind, CodeInvalidMessage for everything
// else. Decode never panics and is bounded by MaxBodyBytes, MaxDepth,
// MaxElements and MaxItems whatever the body holds.
func Decode(f Format, body []byte) (Request, error) {
	m, err := decode(f, body, true)
	if err != nil {
		return nil, err
	}
	return m.(Request), nil
}

// DecodeReply reads a legacy reply from body in format f, for a legacy-side
// client and for tests. It checks structure and syntax as Decode does but
// fewer presence rules: any NegativeReply code of the right syntax is taken.
// It reads up to MaxReplyBytes, as a TicketReply carries whole documents.
func DecodeReply(f Format, body []byte) (Reply, error) {
	m, err := decode(f, body, false)
	if err != nil {
		return nil, err
	}
	return m.(Reply), nil
}

// Encode writes m, a request or reply given by pointer, in format f. It
// does not validate m: the replies the converter builds are its own
// responsibility, and any string is escaped safely. Zero optional values
// (empty strings, zero times, nil pointers, 0 for optional codes) are
// left out; see readme-legacy.md for the exact forms.
func Encode(f Format, m Message) ([]byte, error) {
	return AppendEncode(make([]byte, 0, 512), f, m)
}

// AppendEncode is Encode appending to dst, e.g. a buffer kept for reuse;
// it returns the extended buffer.
func AppendEncode(dst []byte, f Format, m Message) ([]byte, error) {
	if f != XML && f != JSON {
		return nil, fmt.Errorf("legacy: cannot encode in %v", f)
	}
	w := &writer{format: f, buf: dst}
	if !writeMessage(w, m) {
		return nil, fmt.Errorf("legacy: cannot encode %T (nil, or not a legacy message type)", m)
	}
	return w.finish(), nil
}

// writeMessage writes m, a root or (inside a SynchroReply's Reply) a
// nested message; false if m is nil or of no legacy type.
func writeMessage(w *writer, m Message) bool {
	switch v := m.(type) {
	case *AvailabilityRequest:
		if v != nil {
			writeAvailabilityRequest(w, v)
			return true
		}
	case *BookingRequest:
		if v != nil {
			writeBookingRequest(w, v)
			return true
		}
	case *CancelRequest:
		if v != nil {
			writeCancelRequest(w, v)
			return true
		}
	case *SynchroRequest:
		if v != nil {
			writeSynchroRequest(w, v)
			return true
		}
	case *PassengerDataRequest:
		if v != nil {
			writePassengerDataRequest(w, v)
			return true
		}
	case *TicketRequest:
		if v != nil {
			writeTicketRequest(w, v)
			return true
		}
	case *AvailabilityReply:
		if v != nil {
			writeAvailabilityReply(w, v)
			return true
		}
	case *BookingReply:
		if v != nil {
			writeBookingReply(w, v)
			return true
		}
	case *CancelReply:
		if v != nil {
			writeCancelReply(w, v)
			return true
		}
	case *SynchroReply:
		if v != nil {
			writeSynchroReply(w, v)
			return true
		}
	case *PassengerDataReply:
		if v != nil {
			writePassengerDataReply(w, v)
			return true
		}
	case *TicketReply:
		if v != nil {
			writeTicketReply(w, v)
			return true
		}
	case *ReplacementProposal:
		if v != nil {
			writeReplacementProposal(w, v)
			return true
		}
	case *NegativeReply:
		if v != nil {
			writeNegativeReply(w, v)
			return true
		}
	}
	return false
}

var requestKinds = map[Kind]bool{
	KindAvailabilityRequest: true, KindBookingRequest: true, KindCancelRequest: true,
	KindSynchroRequest: true, KindPassengerDataRequest: true, KindTicketRequest: true,
}

var replyKinds = map[Kind]bool{
	KindAvailabilityReply: true, KindBookingReply: true, KindCancelReply: true,
	KindSynchroReply: true, KindPassengerDataReply: true, KindTicketReply: true,
	KindReplacementProposal: true, KindNegativeReply: true,
}

// decode reads a request (or a reply) of any kind.
func decode(f Format, body []byte, request bool) (Message, error) {
	d := &decoder{format: f}
	limit := MaxBodyBytes
	if !request {
		limit = MaxReplyBytes
	}
	var root *reader
	switch f {
	case XML:
		if len(body) > limit {
			return nil, tooLarge(limit)
		}
		x, head, err := parseXML(body)
		if err != nil {
			return nil, err
		}
		d.messageID, d.namespaced = head.messageID, head.namespaced
		root = newReader(d, nil, x.name, "", -1, x, nil)
	case JSON:
		if len(body) > limit {
			return nil, tooLarge(limit)
		}
		j, id, err := parseJSON(body)
		if err != nil {
			return nil, err
		}
		d.messageID = id
		root = newReader(d, nil, "", "", -1, nil, j)
	default:
		return nil, &Error{Code: CodeInvalidMessage, Rule: "unknown message format", Err: ErrMediaType}
	}
	if !request {
		d.messageID = "" // a reply has no messageId to correlate
	}

	kind, ok := messageKind(root)
	if !ok {
		return nil, d.err
	}
	kinds, what := replyKinds, "reply"
	if request {
		kinds, what = requestKinds, "request"
	}
	if !kinds[kind] {
		field := "type"
		if f == XML {
			field = ""
		}
		d.fail(CodeUnsupportedMessage, field, shortName(string(kind))+" is not a legacy "+what+" the converter takes")
		return nil, d.err
	}
	d.kind = kind

	m := readMessage(root, kind)
	root.done()
	if d.err != nil {
		return nil, d.err
	}
	return m, nil
}

// readMessage reads the fields of a message of a known kind from r.
func readMessage(r *reader, kind Kind) Message {
	switch kind {
	case KindAvailabilityRequest:
		return readAvailabilityRequest(r)
	case KindBookingRequest:
		return readBookingRequest(r)
	case KindCancelRequest:
		return readCancelRequest(r)
	case KindSynchroRequest:
		return readSynchroRequest(r)
	case KindPassengerDataRequest:
		return readPassengerDataRequest(r)
	case KindTicketRequest:
		return readTicketRequest(r)
	case KindAvailabilityReply:
		return readAvailabilityReply(r)
	case KindBookingReply:
		return readBookingReply(r)
	case KindCancelReply:
		return readCancelReply(r)
	case KindSynchroReply:
		return readSynchroReply(r)
	case KindPassengerDataReply:
		return readPassengerDataReply(r)
	case KindTicketReply:
		return readTicketReply(r)
	case KindReplacementProposal:
		return readReplacementProposal(r)
	case KindNegativeReply:
		return readNegativeReply(r)
	}
	return nil
}

// messageKind reads the kind: the XML root element name or the JSON "type".
func messageKind(root *reader) (Kind, bool) {
	if root.x != nil {
		return Kind(root.x.name), true
	}
	s, ok := root.str("type", true)
	if !ok && root.d.err == nil {
		root.fail("type", true, ruleRequired)
	}
	return Kind(s), root.d.err == nil
}

func tooLarge(limit int) *Error {
	return &Error{Code: CodeInvalidMessage, Rule: "the body is larger than " + strconv.Itoa(limit) + " bytes", Err: ErrTooLarge}
}

// shortName makes a name taken from the input safe and short for an error
// message: at most 40 bytes, quoted if it holds anything but printable ASCII.
func shortName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return quoteShort(s)
		}
	}
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// quoteShort quotes s for an error message, cut to 40 bytes so an error
// never echoes a large input.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}

// shortMsg bounds a parser's message, which may quote the input: at most
// 200 bytes, ASCII-quoted if it holds anything unprintable.
func shortMsg(s string) string {
	if len(s) <= 200 && utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return strconv.QuoteToASCII(s)
}
