package legacysandbox

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// DebugPath ends the path of the debug listing, GET .../_sandbox/bookings.
const DebugPath = "/_sandbox/bookings"

// ServeHTTP answers one legacy message, the body of a POST to any path,
// in the request's form, after Config.Latency; and GET .../_sandbox/bookings
// with the debug listing. Every failure is a NegativeReply with its status.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, DebugPath) {
		body := s.bookingsJSON()
		s.wait(r.Context())
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
		return
	}
	format, reply, status := s.serve(w, r)
	s.wait(r.Context())
	out, err := legacy.Encode(format, reply)
	if err != nil {
		// Only the sandbox's own replies are encoded; this would be a bug.
		http.Error(w, "encoding the legacy reply failed", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", format.ContentType())
	h.Set("Content-Length", strconv.Itoa(len(out)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// serve reads, decodes and answers the request: the reply, its form and
// its HTTP status.
func (s *Sandbox) serve(w http.ResponseWriter, r *http.Request) (legacy.Format, legacy.Reply, int) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		allowed := "a legacy message is the body of a POST, not of a " + r.Method
		if r.Method == http.MethodGet {
			allowed += " (GET ..." + DebugPath + " lists the bookings)"
		}
		return s.refuse(replyFormat(r), &legacy.Error{Code: legacy.CodeInvalidMessage, Field: "method", Rule: allowed},
			http.StatusMethodNotAllowed)
	}
	format, err := legacy.FormatOf(r.Header.Get("Content-Type"))
	if err != nil {
		return s.refuse(replyFormat(r), err, 0)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return s.refuse(format, &legacy.Error{Code: legacy.CodeInvalidMessage, Err: legacy.ErrTooLarge,
				Rule: "the message is longer than " + strconv.FormatInt(s.cfg.MaxBody, 10) + " bytes"}, 0)
		}
		return s.refuse(format, &legacy.Error{Code: legacy.CodeInvalidMessage, Err: err,
			Rule: "the message could not be read"}, 0)
	}
	req, err := legacy.Decode(format, body)
	if err != nil {
		return s.refuse(format, err, 0)
	}
	reply := s.handle(req)
	return format, reply, Status(reply)
}

// refuse is the NegativeReply to a request that could not be taken, with
// status, or the error's own status when 0.
func (s *Sandbox) refuse(format legacy.Format, err error, status int) (legacy.Format, legacy.Reply, int) {
	var le *legacy.Error
	if !errors.As(err, &le) {
		le = &legacy.Error{Code: legacy.CodeInvalidMessage, Err: err, Rule: "the message could not be read"}
	}
	if status == 0 {
		status = le.HTTPStatus()
	}
	return format, le.NegativeReply(s.cfg.Now()), status
}

// replyFormat is the form of a reply to a request whose Content-Type names
// none: JSON if the client accepts it and not XML, else XML.
func replyFormat(r *http.Request) legacy.Format {
	accept := r.Header.Get("Accept")
	if strings.Contains(accept, "json") && !strings.Contains(accept, "xml") {
		return legacy.JSON
	}
	return legacy.XML
}
