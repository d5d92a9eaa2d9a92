package consumer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

func init() {
	caddy.RegisterModule(Convert{})
}

// Convert is the osdm_convert handler: it reads a legacy Hermes/HOSA
// request (XML or JSON), makes the OSDM calls it stands for through the
// rest of its route (osdm_token, reverse_proxy), one sub-request per call,
// and answers the legacy reply in the request's own format. It never calls
// next with the legacy request itself.
//
// A legacy message resent with the same messageId gets the first reply
// again without a second OSDM sequence, also on another instance sharing
// the Store and after a restart (the journal, convert_journal.go); the
// sequence runs to its end even if the legacy client goes away, bounded by
// Timeout.
type Convert struct {
	// Partner names the partner railway in logs, metrics and reply texts.
	// Required.
	Partner string `json:"partner,omitempty"`
	// OfferSearch is "offers" (POST /offers, OSDM 3.x, the default) or
	// "trip-offers" (GET /trip-offers with query parameters, older partners).
	OfferSearch string `json:"offer_search,omitempty"`
	// Tariffs maps legacy tariff codes to OSDM passengers. They are merged
	// over the defaults (1 ADULT 30, 2 CHILD 8, 3 SENIOR 65, 4 YOUTH 16).
	Tariffs map[string]TariffMapping `json:"tariffs,omitempty"`
	// Reasons maps legacy cancel reason codes to OSDM overrule codes, merged
	// over the defaults (1 TECHNICAL_FAILURE, 2 SALES_STAFF_ERROR,
	// 3 DISRUPTION, 4 CONNECTION_BROKEN, 5 STRIKE).
	Reasons map[string]string `json:"reasons,omitempty"`
	// Paths overrides OSDM path templates by step name: offers, trip_offers,
	// bookings, booking, delete_booking, fulfillments, refund_offers,
	// refund_offer. E.g. {"refund_offers": "/bookings/{bookingId}/refundOffers"}.
	Paths map[string]string `json:"paths,omitempty"`
	// PathPrefix goes before every step's path, default or overridden:
	// "/osdm" for a partner whose OSDM API lives under /osdm. Default: none.
	PathPrefix string `json:"path_prefix,omitempty"`
	// TimeZone is the IANA zone a legacy DepartureTime is read in when the
	// departure station's country has none known. Default: Europe/Paris.
	TimeZone string `json:"time_zone,omitempty"`
	// Timeout bounds a whole legacy exchange, all OSDM calls included, and
	// separately the reading of the legacy message: a body not received
	// within it is answered 408 with a NegativeReply. Default: 20s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// MaxBody is the largest legacy request body read, in bytes; larger
	// ones are answered 413. Default: 64 KiB; at most 1 MiB.
	MaxBody int64 `json:"max_body,omitempty"`
	// MaxDocument is the largest ticket document a TicketReply carries,
	// in bytes; a larger one is refused with DOCUMENT_TOO_LARGE, never
	// cut, and no more of it is read from the partner. Default: 4 MiB; at
	// most 32 MiB.
	MaxDocument int64 `json:"max_document,omitempty"`
	// ReplyCacheSize is how many replies are kept for resent messageIds.
	// Default: 10000.
	ReplyCacheSize int `json:"reply_cache_size,omitempty"`
	// ReplyCacheTTL is how long a reply is kept for a resend. Default: 10m.
	ReplyCacheTTL caddy.Duration `json:"reply_cache_ttl,omitempty"`
	// Store keeps the journal of exchanges under way and the replies to
	// messages that changed state at the partner, for ReplyCacheTTL, so a
	// resend is answered the same on any instance sharing it and after a
	// restart. Default: bolt in Caddy's data directory.
	Store *storeconfig.Config `json:"store,omitempty"`
	// SettleInterval is how often exchanges left without an outcome (by a
	// process that died, or a partner that stopped answering) are settled
	// at the partner, from the start of the configuration. Default: the
	// osdm app's settle_interval (30s).
	SettleInterval caddy.Duration `json:"settle_interval,omitempty"`

	conv    *converter.Converter
	replies *converter.ReplyCache
	poolKey string
	metrics *convertMetrics
	logger  *zap.Logger
	now     func() time.Time

	// The journal (convert_journal.go).
	journal *converter.Journal
	store   *store.Handle
	calls   *convertCalls
}

// CaddyModule returns the Caddy module information.
func (Convert) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[Convert]("http.handlers.osdm_convert")
}

// replyCaches holds the reply caches across config reloads, keyed by
// partner and cache settings: a Hermes resend that arrives just after a
// reload must still find the first reply. A cache holds no goroutine:
// there is nothing to free.
var replyCaches = modulekit.NewPool[*converter.ReplyCache](nil)

// Defaults of osdm_convert.
const (
	defaultConvertTimeout = 20 * time.Second
	defaultMaxBody        = 64 << 10
	defaultReplyCacheSize = 10000
	defaultReplyCacheTTL  = 10 * time.Minute
)

// Provision builds the converter and its reply cache.
func (c *Convert) Provision(ctx caddy.Context) error {
	c.logger = ctx.Logger()
	if c.now == nil {
		c.now = time.Now
	}
	cfg, err := c.converterConfig()
	if err != nil {
		return err
	}
	if c.conv, err = converter.New(cfg); err != nil {
		return fmt.Errorf("partner %q: %w", c.Partner, err)
	}
	if c.Timeout == 0 {
		c.Timeout = caddy.Duration(defaultConvertTimeout)
	}
	if c.MaxBody == 0 {
		c.MaxBody = defaultMaxBody
	}
	if c.ReplyCacheSize == 0 {
		c.ReplyCacheSize = defaultReplyCacheSize
	}
	if c.ReplyCacheTTL == 0 {
		c.ReplyCacheTTL = caddy.Duration(defaultReplyCacheTTL)
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", c.Partner, c.ReplyCacheSize, c.ReplyCacheTTL)
	c.replies, _, err = replyCaches.Take(key, func() (*converter.ReplyCache, error) {
		return converter.NewReplyCache(c.ReplyCacheSize, time.Duration(c.ReplyCacheTTL), c.now), nil
	})
	if err != nil {
		return err
	}
	c.poolKey = key
	if c.metrics, err = registerConvertMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	return c.provisionJournal(ctx)
}

// converterConfig turns the JSON config into the converter's.
func (c *Convert) converterConfig() (converter.Config, error) {
	cfg := converter.Config{Partner: c.Partner, OfferSearch: converter.OfferSearch(c.OfferSearch), Now: c.now, MaxDocument: c.MaxDocument}
	if len(c.Tariffs) > 0 {
		cfg.Tariffs = converter.DefaultTariffs()
		for code, t := range c.Tariffs {
			n, err := legacyCode(code)
			if err != nil {
				return cfg, fmt.Errorf("tariffs: %w", err)
			}
			cfg.Tariffs[n] = converter.PassengerTariff{Type: osdm.PassengerType(t.Type), Age: t.Age}
		}
	}
	if len(c.Reasons) > 0 {
		cfg.Reasons = converter.DefaultReasons()
		for code, overrule := range c.Reasons {
			n, err := legacyCode(code)
			if err != nil {
				return cfg, fmt.Errorf("reasons: %w", err)
			}
			cfg.Reasons[n] = osdm.OverruleCode(overrule)
		}
	}
	if len(c.Paths) > 0 {
		cfg.Paths = make(map[converter.Step]string, len(c.Paths))
		for name, tmpl := range c.Paths {
			cfg.Paths[converter.Step(name)] = tmpl
		}
	}
	cfg.PathPrefix = c.PathPrefix
	if c.TimeZone != "" {
		loc, err := modulekit.TimeZone(c.TimeZone)
		if err != nil {
			return cfg, err
		}
		cfg.Location = loc
	}
	return cfg, nil
}

// Validate checks the configuration. Provisioned, the converter was built
// from it; not yet (a Caddyfile being adapted), its configuration is
// built and checked on a copy, which keeps the JSON that `caddy adapt`
// prints free of filled-in defaults.
func (c *Convert) Validate() error {
	if c.conv == nil {
		cp := *c
		cp.now = time.Now
		cfg, err := cp.converterConfig()
		if err != nil {
			return err
		}
		if _, err := converter.New(cfg); err != nil {
			return err
		}
	}
	if c.Timeout < 0 {
		return fmt.Errorf("timeout %s must be positive", time.Duration(c.Timeout))
	}
	if c.MaxBody < 0 || c.MaxBody > legacy.MaxBodyBytes {
		return fmt.Errorf("max_body %d must be 1..%d bytes", c.MaxBody, legacy.MaxBodyBytes)
	}
	if c.MaxDocument < 0 || c.MaxDocument > converter.MaxMaxDocument {
		return fmt.Errorf("max_document %d must be 1..%d bytes", c.MaxDocument, converter.MaxMaxDocument)
	}
	if c.ReplyCacheSize < 0 || c.ReplyCacheTTL < 0 {
		return errors.New("reply_cache size and ttl must be positive")
	}
	if c.SettleInterval < 0 {
		return fmt.Errorf("settle_interval %s must be positive", time.Duration(c.SettleInterval))
	}
	if c.Store != nil {
		if err := c.Store.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Cleanup releases this configuration's hold on the reply cache (the
// osdm app holds the store and stops settlement).
func (c *Convert) Cleanup() error {
	return replyCaches.Release(c.poolKey)
}

// ServeHTTP answers one legacy request.
func (c *Convert) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	start := time.Now()
	// The legacy body is read into a pooled buffer: only this exchange
	// reads it (the reply cache and the journal keep its hash, the decoded
	// request copies what it holds), and it is given back once the reply
	// is written.
	buf := subrequest.GetBuffer()
	defer subrequest.PutBuffer(buf)
	format, req, body, refusal := c.readRequest(w, r, buf)
	if refusal != nil {
		// The kind and messageId when the request could be read that far
		// (the reply's correlationId is the messageId).
		kind := "unknown"
		if refusal.RequestKind != "" {
			kind = string(refusal.RequestKind)
		}
		messageID := refusal.Reply.ReplyHeader().CorrelationID
		c.metrics.exchanges.WithLabelValues(c.Partner, kind, refusal.Outcome).Inc()
		reason := negativeText(refusal.Reply)
		addAccessLogFields(r, exchangeLog{partner: c.Partner, kind: kind, messageID: messageID, outcome: refusal.Outcome, reason: reason})
		c.logger.Info("legacy request refused",
			zap.String("partner", c.Partner), zap.String("kind", kind), zap.String("message_id", messageID),
			zap.String("outcome", refusal.Outcome), zap.Int("status", refusal.Status), zap.String("reason", reason))
		return c.writeReply(w, format, refusal)
	}

	x := newNextCaller(r, next, subrequest.TraceParent(r), c.metrics, c.Partner)
	c.calls.begin()
	stored := false
	res, shared := c.replies.Do(r.Context(), req.MessageID(), body, func() *converter.Result {
		// Detached from the legacy client: a sequence that has booked must
		// get to fulfil or roll back even if the client hangs up.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Duration(c.Timeout))
		defer cancel()
		res, fromStore := c.journal.Do(ctx, req, body, x)
		stored = fromStore
		return res
	})
	x.release()
	c.calls.end(res, c.now())
	shared = shared || stored
	c.metrics.exchanges.WithLabelValues(c.Partner, string(req.Kind()), res.Outcome).Inc()
	el := newExchangeLog(c.Partner, req, res, x.calls, shared)
	addAccessLogFields(r, el)
	c.logExchange(el, req, res, time.Since(start))
	return c.writeReply(w, format, res)
}

// readRequest reads the legacy body into buf and decodes it. On failure it
// returns the refusal to answer (by the converter's intake rules), in the
// format the client can read.
func (c *Convert) readRequest(w http.ResponseWriter, r *http.Request, buf *[]byte) (legacy.Format, legacy.Request, []byte, *converter.Result) {
	if res := converter.RefuseMethod(r.Method, c.now()); res != nil {
		w.Header().Set("Allow", http.MethodPost)
		return converter.ReplyFormat(r.Header.Get("Accept")), nil, nil, res
	}
	format, err := legacy.FormatOf(r.Header.Get("Content-Type"))
	if err != nil {
		return converter.ReplyFormat(r.Header.Get("Accept")), nil, nil, converter.Refuse(err, c.now())
	}
	body, err := c.readBody(w, r, buf)
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
	case subrequest.IsTimeout(err):
		return format, nil, nil, converter.RefuseBodyTimeout(err, time.Duration(c.Timeout), c.now())
	case errors.As(err, &mbe):
		return format, nil, nil, converter.RefuseTooLarge(c.MaxBody, c.now())
	default:
		return format, nil, nil, converter.Refuse(err, c.now())
	}
	req, err := legacy.Decode(format, body)
	if err != nil {
		return format, nil, nil, converter.Refuse(err, c.now())
	}
	return format, req, body, nil
}

// readBody reads the legacy body into buf, at most MaxBody bytes, within
// Timeout: the read deadline of the connection is set for the time the
// body may take and cleared after it, so that a client that sends its
// message slowly is cut off like an exchange that takes too long.
func (c *Convert) readBody(w http.ResponseWriter, r *http.Request, buf *[]byte) ([]byte, error) {
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(time.Duration(c.Timeout))) == nil
	body, err := subrequest.AppendAllSized((*buf)[:0], http.MaxBytesReader(w, r.Body, c.MaxBody), r.ContentLength)
	*buf = body
	if deadline {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// writeReply encodes res.Reply in format and writes it with res.Status,
// from a pooled buffer: the bytes written are the reply's only use of it.
func (c *Convert) writeReply(w http.ResponseWriter, format legacy.Format, res *converter.Result) error {
	buf := subrequest.GetBuffer()
	defer subrequest.PutBuffer(buf)
	out, err := legacy.AppendEncode(*buf, format, res.Reply)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, fmt.Errorf("encoding the legacy reply: %w", err))
	}
	*buf = out
	// The three values in one array (the keys are canonical): what Set
	// would do, in one allocation instead of three.
	values := []string{format.ContentType(), strconv.Itoa(len(out)), "no-store"}
	h := w.Header()
	h["Content-Type"] = values[0:1:1]
	h["Content-Length"] = values[1:2:2]
	h["Cache-Control"] = values[2:3:3]
	w.WriteHeader(res.Status)
	_, err = w.Write(out)
	return err
}

// exchangeLog is what osdm_convert logs of one legacy exchange: the
// fields of its "legacy exchange" line and, without status and duration
// (which the access log has of its own), of Caddy's access log line of
// the legacy request. One value, inlined, so that the access log costs
// one field per exchange.
type exchangeLog struct {
	partner, kind, messageID, outcome string
	reason, bookingRef                string
	resent                            bool
	calls                             callList
	// status > 0: the exchange line, with the reply status and the
	// exchange's duration.
	status   int
	duration time.Duration
}

// newExchangeLog collects the log fields of an exchange that was decoded.
func newExchangeLog(partner string, req legacy.Request, res *converter.Result, calls []callRecord, resent bool) exchangeLog {
	el := exchangeLog{partner: partner, kind: string(req.Kind()), messageID: req.MessageID(), outcome: res.Outcome,
		resent: resent, calls: calls}
	switch reply := res.Reply.(type) {
	case *legacy.NegativeReply:
		el.reason, el.bookingRef = reply.Text, reply.BookingRef
	case *legacy.BookingReply:
		el.bookingRef = reply.BookingRef
	case *legacy.CancelReply:
		el.bookingRef = reply.BookingRef
	case *legacy.PassengerDataReply:
		el.bookingRef = reply.BookingRef
	case *legacy.TicketReply:
		el.bookingRef = reply.BookingRef
	}
	return el
}

// MarshalLogObject implements zapcore.ObjectMarshaler.
func (el exchangeLog) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("partner", el.partner)
	enc.AddString("kind", el.kind)
	if el.messageID != "" {
		enc.AddString("message_id", el.messageID)
	}
	enc.AddString("outcome", el.outcome)
	if el.status > 0 {
		enc.AddInt("status", el.status)
	}
	if el.kind != "unknown" {
		enc.AddBool("resent", el.resent)
	}
	if el.status > 0 {
		enc.AddDuration("duration", el.duration)
	}
	if el.kind != "unknown" {
		if err := enc.AddArray("osdm_calls", el.calls); err != nil {
			return err
		}
	}
	if el.reason != "" {
		enc.AddString("reason", el.reason)
	}
	if el.bookingRef != "" {
		enc.AddString("booking_ref", el.bookingRef)
	}
	return nil
}

// addAccessLogFields adds the exchange's fields to Caddy's access log line
// of r (caddyhttp.ExtraLogFields, which a site with `log` writes).
func addAccessLogFields(r *http.Request, el exchangeLog) {
	if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok {
		extra.Add(zap.Inline(el))
	}
}

// logExchange writes the one log line of a legacy exchange, by the rule
// osdm_legacy follows too: DEBUG for a search answered with offers (an
// AvailabilityReply, to an AvailabilityRequest or an informationOnly
// BookingRequest: read-only and the high-volume message; Caddy's access
// log carries its fields, addAccessLogFields), INFO for bookings,
// cancellations and every NegativeReply, WARN when the reply is a 5xx.
func (c *Convert) logExchange(el exchangeLog, req legacy.Request, res *converter.Result, d time.Duration) {
	level := zapcore.InfoLevel
	switch {
	case res.Status >= http.StatusInternalServerError:
		level = zapcore.WarnLevel
	case res.Reply.Kind() == legacy.KindAvailabilityReply:
		level = zapcore.DebugLevel
	}
	ce := c.logger.Check(level, "legacy exchange")
	if ce == nil {
		return
	}
	el.status, el.duration = res.Status, d
	ce.Write(zap.Inline(el))
}

// negativeText is the text of a NegativeReply, "" for other replies.
func negativeText(r legacy.Reply) string {
	if nr, ok := r.(*legacy.NegativeReply); ok {
		return nr.Text
	}
	return ""
}

// callList logs the OSDM calls of an exchange as an array of objects.
type callList []callRecord

// MarshalLogArray implements zapcore.ArrayMarshaler.
func (cl callList) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, call := range cl {
		if err := enc.AppendObject(call); err != nil {
			return err
		}
	}
	return nil
}

// MarshalLogObject implements zapcore.ObjectMarshaler. The path is the
// template: booking ids stay out of the log line's shape.
func (cr callRecord) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("step", string(cr.step))
	enc.AddString("method", cr.method)
	enc.AddString("path", cr.template)
	if cr.status > 0 {
		enc.AddInt("status", cr.status)
	}
	enc.AddDuration("duration", cr.duration)
	if cr.err != nil {
		enc.AddString("error", cr.err.Error())
	}
	return nil
}

// Interface guards (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner       = (*Convert)(nil)
	_ caddy.Validator         = (*Convert)(nil)
	_ caddy.CleanerUpper      = (*Convert)(nil)
	_ zapcore.ArrayMarshaler  = callList(nil)
	_ zapcore.ObjectMarshaler = callRecord{}
	_ zapcore.ObjectMarshaler = exchangeLog{}
)
