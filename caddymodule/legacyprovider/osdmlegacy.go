package legacyprovider

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/timetable"
)

func init() {
	caddy.RegisterModule(OSDMLegacy{})
}

// OSDMLegacy is the osdm_legacy handler: an OSDM provider in front of a
// legacy (Hermes/HOSA) reservation system. It serves the OSDM calls of
// docs/mapping.md (POST /offers, bookings, fulfilments, refund
// offers) and sends the legacy messages each stands for through the rest
// of its route (reverse_proxy to the legacy system), one sub-request per
// message. Requests outside its restrictions get an OSDM problem that
// names the restriction. It never calls next with the OSDM request itself.
type OSDMLegacy struct {
	// Partner names the legacy system in logs, metrics and problem texts.
	// Required.
	Partner string `json:"partner,omitempty"`
	// Timetable is a GTFS static feed (a .zip file or a folder): the
	// direct trains a search without a train number may mean. Without one
	// a search must name its train.
	Timetable string `json:"timetable,omitempty"`
	// TimetableStationCode says where the feed keeps a stop's 7-digit UIC
	// code: stop_code (default) or stop_id.
	TimetableStationCode string `json:"timetable_station_code,omitempty"`
	// Search is availability (AvailabilityRequest, the default) or
	// information_only (BookingRequest informationOnly=true).
	Search string `json:"search,omitempty"`
	// MaxTrains is the most trains one offer search asks about. Default 8.
	MaxTrains int `json:"max_trains,omitempty"`
	// Window is how far from the asked time a timetable search looks.
	// Default 4h, at most 48h.
	Window caddy.Duration `json:"window,omitempty"`
	// MaxChanges is how many changes of train a journey may have: 0
	// (direct trains only) to 2. Default 1.
	MaxChanges *int `json:"max_changes,omitempty"`
	// MinTransfer is the shortest change between two trains at a station
	// the timetable's transfers.txt gives no minimum for. Default 10m.
	MinTransfer caddy.Duration `json:"min_transfer,omitempty"`
	// MaxTrips is the most trips a timetable search answers. Default 6.
	MaxTrips int `json:"max_trips,omitempty"`
	// Concurrency is the most legacy messages in flight for one OSDM call.
	// Default 4.
	Concurrency int `json:"concurrency,omitempty"`
	// Tariffs map OSDM passengers to legacy tariff codes, first match
	// first. Default: ADULT 18-150 -> 1, CHILD 0-17 -> 2, SENIOR 60-150 -> 3,
	// YOUTH 12-27 -> 4.
	Tariffs []LegacyTariff `json:"tariffs,omitempty"`
	// Reasons map OSDM overrule codes to legacy cancel reason codes.
	// Default: TECHNICAL_FAILURE 1, SALES_STAFF_ERROR 2, DISRUPTION 3,
	// CONNECTION_BROKEN 4, STRIKE 5.
	Reasons map[string]int `json:"reasons,omitempty"`
	// RefundFee is what a refund offer quotes for an ordinary refund: a
	// percentage ("10%") or an amount and currency ("2.50 EUR"). Default
	// none.
	RefundFee string `json:"refund_fee,omitempty"`
	// ExchangeFee is what an exchange offer quotes on top of the price
	// difference, none with an overruleCode: a percentage of the exchanged
	// booking's price ("10%") or an amount and currency ("5.00 EUR").
	// Default none (the old places are cancelled without a fee); else it
	// must be RefundFee, the fee the legacy system keeps on the old places.
	ExchangeFee string `json:"exchange_fee,omitempty"`
	// BookingHorizon is how far ahead a train is sold: a search for a
	// later day is refused. Default 365d.
	BookingHorizon caddy.Duration `json:"booking_horizon,omitempty"`
	// OfferTTL is how long an offer stays bookable. Default 15m.
	OfferTTL caddy.Duration `json:"offer_ttl,omitempty"`
	// Hold is how long a PREBOOKED booking holds its places before it is
	// released. Default 20m.
	Hold caddy.Duration `json:"hold,omitempty"`
	// Store is where offers, bookings, idempotency keys and intents live.
	// Default: bolt, osdm/store.db in Caddy's data directory.
	Store *storeconfig.Config `json:"store,omitempty"`
	// Timeout bounds one OSDM call, all its legacy messages included.
	// Default 20s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// MaxBody is the largest OSDM request body read, in bytes. Default
	// 256 KiB, at most 1 MiB.
	MaxBody int64 `json:"max_body,omitempty"`
	// Services are the legacy service codes an offer search asks for per
	// train and class: 1 seat, 2 couchette, 3 berth. Default [1].
	Services []int `json:"services,omitempty"`
	// LegacyFormat is the form legacy messages are sent in: xml (default)
	// or json.
	LegacyFormat string `json:"legacy_format,omitempty"`
	// LegacyPath is the path legacy messages are posted to. Default "/".
	LegacyPath string `json:"legacy_path,omitempty"`
	// TimeZone is the IANA zone of stations whose UIC country has none
	// known and which the timetable does not have. Default Europe/Paris.
	TimeZone string `json:"time_zone,omitempty"`
	// SettleInterval is how often intents left unanswered are settled and
	// expired holds released, from the start of the configuration.
	// Default: the osdm app's settle_interval (30s).
	SettleInterval caddy.Duration `json:"settle_interval,omitempty"`
	// Documents is pdf (the default: every FULFILLED fulfilment has its
	// ticket as a PDF_A4 document) or none (fulfilments carry their
	// control number only).
	Documents string `json:"documents,omitempty"`

	facade  *osdmlegacy.Facade
	metrics *legacyMetrics
	logger  *zap.Logger
	format  legacy.Format
}

// CaddyModule returns the Caddy module information.
func (OSDMLegacy) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[OSDMLegacy]("http.handlers.osdm_legacy")
}

// facadeConfig turns the JSON config into the façade's.
func (m *OSDMLegacy) facadeConfig() (osdmlegacy.Config, error) {
	cfg := osdmlegacy.Config{
		Partner: m.Partner, Timetable: m.Timetable, Search: osdmlegacy.SearchMode(m.Search),
		MaxTrains: m.MaxTrains, Window: time.Duration(m.Window),
		MaxChanges: m.MaxChanges, MinTransfer: time.Duration(m.MinTransfer), MaxTrips: m.MaxTrips, BookingHorizon: time.Duration(m.BookingHorizon), Concurrency: m.Concurrency,
		OfferTTL: time.Duration(m.OfferTTL), Hold: time.Duration(m.Hold), Timeout: time.Duration(m.Timeout),
		MaxBody: m.MaxBody, ServiceCodes: m.Services, Documents: osdmlegacy.DocumentMode(m.Documents),
	}
	for _, t := range m.Tariffs {
		cfg.Tariffs = append(cfg.Tariffs, osdmlegacy.TariffRule{Type: osdm.PassengerType(t.Type), MinAge: t.MinAge, MaxAge: t.MaxAge, Code: t.Code})
	}
	if len(m.Reasons) > 0 {
		cfg.Reasons = osdmlegacy.DefaultReasons()
		for code, reason := range m.Reasons {
			cfg.Reasons[osdm.OverruleCode(code)] = reason
		}
	}
	if m.RefundFee != "" {
		fee, err := osdmlegacy.ParseFee(m.RefundFee)
		if err != nil {
			return cfg, fmt.Errorf("refund_fee %w", err)
		}
		cfg.RefundFee = fee
	}
	if m.ExchangeFee != "" {
		fee, err := osdmlegacy.ParseFee(m.ExchangeFee)
		if err != nil {
			return cfg, fmt.Errorf("exchange_fee %w", err)
		}
		cfg.ExchangeFee = fee
	}
	switch strings.ToLower(m.LegacyFormat) {
	case "", "xml":
		cfg.LegacyFormat = legacy.XML
	case "json":
		cfg.LegacyFormat = legacy.JSON
	default:
		return cfg, fmt.Errorf("legacy_format %q: want xml or json", m.LegacyFormat)
	}
	if m.TimeZone != "" {
		loc, err := modulekit.TimeZone(m.TimeZone)
		if err != nil {
			return cfg, err
		}
		cfg.Location = loc
	}
	if m.LegacyPath != "" {
		if err := checkLegacyPath(m.LegacyPath); err != nil {
			return cfg, err
		}
	}
	if m.SettleInterval < 0 {
		return cfg, errors.New("settle_interval must be positive")
	}
	switch m.TimetableStationCode {
	case "", "stop_code", "stop_id":
	default:
		return cfg, fmt.Errorf("timetable_station_code %q: want stop_code or stop_id", m.TimetableStationCode)
	}
	return cfg.Normalize()
}

// Provision loads the timetable, opens the store and builds the façade.
func (m *OSDMLegacy) Provision(ctx caddy.Context) error {
	m.logger = ctx.Logger()
	cfg, err := m.facadeConfig()
	if err != nil {
		return fmt.Errorf("osdm_legacy %q: %w", m.Partner, err)
	}
	m.format = cfg.LegacyFormat
	deps := osdmlegacy.Deps{}
	if m.Timetable != "" {
		tt, err := timetable.Load(m.Timetable, timetable.Options{StationCode: m.TimetableStationCode})
		if err != nil {
			return fmt.Errorf("osdm_legacy %q: timetable: %w", m.Partner, err)
		}
		for _, w := range tt.Warnings() {
			m.logger.Warn("timetable", zap.String("partner", m.Partner), zap.String("file", m.Timetable), zap.String("warning", w))
		}
		deps.Timetable = osdmlegacy.GTFS(tt)
	}
	app, err := appview.For(ctx)
	if err != nil {
		return err
	}
	h, _, err := app.Store(m.Store)
	if err != nil {
		return fmt.Errorf("osdm_legacy %q: store: %w", m.Partner, err)
	}
	if m.metrics, err = registerLegacyMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	deps.Store = store.WithPrefix(h, "legacy/"+m.Partner+"/")
	deps.Sender = osdmlegacy.HTTPSender(&appRoutePoster{app: app, m: m, path: m.legacyPath(), observe: m.observeLegacy}, m.format)
	if m.facade, err = osdmlegacy.New(cfg, deps); err != nil {
		return fmt.Errorf("osdm_legacy %q: %w", m.Partner, err)
	}
	app.Report(m.facade.Status())
	app.Background(m.settleJob(cfg))
	return nil
}

// checkLegacyPath checks a legacy_path: it starts with /, and, sent as
// it is written (encoded), has no ? or # (which would not start a query
// or fragment but be part of the path), space or control character.
func checkLegacyPath(p string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("legacy_path %q must start with /", p)
	}
	if i := strings.IndexFunc(p, func(r rune) bool { return r == '?' || r == '#' || r <= ' ' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("legacy_path %q must be a plain path: no query, fragment, space or control character (%q at byte %d)", p, p[i], i)
	}
	return nil
}

// legacyPath is the path legacy messages are posted to.
func (m *OSDMLegacy) legacyPath() string {
	if m.LegacyPath == "" {
		return "/"
	}
	return m.LegacyPath
}

// observeLegacy records one legacy message's status (0: none) and time.
func (m *OSDMLegacy) observeLegacy(status int, d time.Duration) {
	m.metrics.observeLegacy(m.Partner, status, d)
}

// Cleanup has nothing to release: the osdm app holds the store and stops
// the background work.
func (m *OSDMLegacy) Cleanup() error { return nil }

// ServeHTTP answers one OSDM call.
func (m *OSDMLegacy) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	start := time.Now()
	cfg := m.facade.Config()
	// The body arrives within the call's timeout, or the call is refused
	// (408): a client dribbling it holds no connection.
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(start.Add(cfg.Timeout)) == nil
	body, err := subrequest.ReadAllSized(io.LimitReader(r.Body, cfg.MaxBody+1), r.ContentLength)
	if deadline {
		_ = rc.SetReadDeadline(time.Time{})
	}
	if err != nil && subrequest.IsTimeout(err) {
		a := m.facade.BodyTimeout(r.Method, r.URL.Path)
		m.metrics.observeAnswer(m.Partner, a)
		m.logCall(r, a, time.Since(start))
		return a.Write(w)
	}
	if err != nil {
		return caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("reading the OSDM request: %w", err))
	}
	send := osdmlegacy.HTTPSender(newLegacyPoster(r, next, m.legacyPath(), m.observeLegacy), m.format)
	// The client osdm_access let the call through for owns what it books;
	// without osdm_access the call is the anonymous owner's.
	a := m.facade.ServeClient(r.Context(), modulekit.Client(r), send, r.Method, modulekit.RequestTarget(r), r.Header, body)
	m.metrics.observeAnswer(m.Partner, a)
	m.logCall(r, a, time.Since(start))
	return a.Write(w)
}

// logCall writes the one log line of an OSDM call, with its legacy
// messages. Paths are templates, so ids stay out of the line's shape; no
// header is logged (the access token stays out).
func (m *OSDMLegacy) logCall(r *http.Request, a *osdmlegacy.Answer, d time.Duration) {
	ce := m.logger.Check(callLogLevel(a), "osdm call")
	if ce == nil {
		return
	}
	fields := []zap.Field{
		zap.String("partner", m.Partner),
		zap.String("operation", a.Operation),
		zap.Int("status", a.Status),
		zap.String("outcome", a.Outcome),
		zap.Duration("duration", d),
		zap.Array("legacy_messages", messageList(a.Messages)),
	}
	if a.FanOut > 0 {
		fields = append(fields, zap.Int("fan_out", a.FanOut))
	}
	if a.BookingID != "" {
		fields = append(fields, zap.String("booking_id", a.BookingID))
	}
	if a.StoreErrors > 0 {
		fields = append(fields, zap.Int("store_errors", a.StoreErrors))
	}
	if a.Cause != nil {
		fields = append(fields, zap.Error(a.Cause))
	}
	if a.Problem != nil {
		fields = append(fields, zap.String("reason", a.Problem.Detail))
	}
	ce.Write(fields...)
}

// callLogLevel is the level of an OSDM call's line, by the rule
// osdm_convert follows too: DEBUG for a search answered with offers
// (read-only and the high-volume call; Caddy's access log has it), INFO
// for every call that books, changes or is refused, WARN for a 5xx.
func callLogLevel(a *osdmlegacy.Answer) zapcore.Level {
	switch {
	case a.Status >= http.StatusInternalServerError:
		return zapcore.WarnLevel
	case a.Operation == "POST /offers" && a.Status < http.StatusMultipleChoices:
		return zapcore.DebugLevel
	}
	return zapcore.InfoLevel
}

// messageList logs legacy messages as an array of objects.
type messageList []osdmlegacy.MessageRecord

// MarshalLogArray implements zapcore.ArrayMarshaler.
func (ml messageList) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, msg := range ml {
		if err := enc.AppendObject(messageRecord(msg)); err != nil {
			return err
		}
	}
	return nil
}

// messageRecord logs one legacy message.
type messageRecord osdmlegacy.MessageRecord

// MarshalLogObject implements zapcore.ObjectMarshaler.
func (mr messageRecord) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("kind", string(mr.Kind))
	enc.AddString("message_id", mr.MessageID)
	enc.AddString("outcome", mr.Outcome)
	enc.AddDuration("duration", mr.Duration)
	return nil
}

// Interface guards (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner  = (*OSDMLegacy)(nil)
	_ caddy.CleanerUpper = (*OSDMLegacy)(nil)
)
