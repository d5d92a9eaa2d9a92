package converter

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// Converter turns legacy requests into OSDM calls for one partner route.
// It holds only configuration, so one Converter serves any number of
// concurrent Convert calls.
type Converter struct {
	partner     string
	offerSearch OfferSearch
	tariffs     map[int]PassengerTariff
	reasons     map[int]osdm.OverruleCode
	paths       map[Step]string
	location    *time.Location
	now         func() time.Time
	maxDocument int64
	// maxTickets bounds the documents of one TicketReply together, so
	// that the reply stays within what a legacy client reads
	// (legacy.MaxReplyBytes) in base64 with room for the rest.
	maxTickets int64
}

// DefaultPaths are the OSDM 3.x path templates of every step; a Config's
// Paths override them one by one.
func DefaultPaths() map[Step]string {
	return map[Step]string{
		StepOffers:        osdm.PathOffers,
		StepTripOffers:    osdm.PathTripOffers,
		StepBooking:       osdm.PathBookings,
		StepFulfillments:  osdm.PathFulfillments,
		StepReadBooking:   osdm.PathBooking,
		StepDeleteBooking: osdm.PathBooking,
		StepRefundOffers:  osdm.PathRefundOffers,
		StepRefundOffer:   osdm.PathRefundOffer,

		StepDeleteRefundOffer: osdm.PathRefundOffer,
		StepPassenger:         osdm.PathPassenger,

		StepExchangeOffers:          osdm.PathExchangeOffers,
		StepExchangeOperation:       osdm.PathExchangeOperations,
		StepReadExchangeOperation:   osdm.PathExchangeOperation,
		StepDeleteExchangeOperation: osdm.PathExchangeOperation,

		StepReadFulfillment: osdm.PathFulfillment,
	}
}

// stepParams are the placeholders each step's path template must hold, no
// more and no fewer: a template without {bookingId} would send every
// cancellation to the same URL.
var stepParams = map[Step][]string{
	StepOffers:        nil,
	StepTripOffers:    nil,
	StepBooking:       nil,
	StepFulfillments:  {osdm.ParamBookingID},
	StepReadBooking:   {osdm.ParamBookingID},
	StepDeleteBooking: {osdm.ParamBookingID},
	StepRefundOffers:  {osdm.ParamBookingID},
	StepRefundOffer:   {osdm.ParamBookingID, osdm.ParamRefundOfferID},

	StepDeleteRefundOffer: {osdm.ParamBookingID, osdm.ParamRefundOfferID},
	StepPassenger:         {osdm.ParamBookingID, osdm.ParamPassengerID},

	StepExchangeOffers:          {osdm.ParamBookingID},
	StepExchangeOperation:       {osdm.ParamBookingID},
	StepReadExchangeOperation:   {osdm.ParamBookingID, osdm.ParamExchangeOperationID},
	StepDeleteExchangeOperation: {osdm.ParamBookingID, osdm.ParamExchangeOperationID},

	StepReadFulfillment: {osdm.ParamFulfillmentID},
}

// defaultLocation is where a departure time is read when the station's
// country has no zone in osdm.StationLocation.
const defaultLocation = "Europe/Paris"

// New checks cfg and returns a Converter with the defaults of
// legacy-protocol.md filled in. Every error names the setting at fault.
func New(cfg Config) (*Converter, error) {
	c := &Converter{
		partner:     cfg.Partner,
		offerSearch: cfg.OfferSearch,
		tariffs:     cfg.Tariffs,
		reasons:     cfg.Reasons,
		paths:       DefaultPaths(),
		location:    cfg.Location,
		now:         cfg.Now,
		maxDocument: cfg.MaxDocument,
	}
	if strings.TrimSpace(c.partner) == "" {
		return nil, fmt.Errorf("partner: must not be empty")
	}
	if c.offerSearch == "" {
		c.offerSearch = OfferSearchOffers
	}
	if c.offerSearch != OfferSearchOffers && c.offerSearch != OfferSearchTripOffers {
		return nil, fmt.Errorf("offer_search: %q is neither %q nor %q", c.offerSearch, OfferSearchOffers, OfferSearchTripOffers)
	}
	if c.tariffs == nil {
		c.tariffs = DefaultTariffs()
	}
	if err := checkTariffs(c.tariffs); err != nil {
		return nil, err
	}
	if c.reasons == nil {
		c.reasons = DefaultReasons()
	}
	if err := checkReasons(c.reasons); err != nil {
		return nil, err
	}
	for step, tmpl := range cfg.Paths {
		if err := checkPath(step, tmpl); err != nil {
			return nil, err
		}
		c.paths[step] = tmpl
	}
	if cfg.PathPrefix != "" {
		if err := CheckPathPrefix(cfg.PathPrefix); err != nil {
			return nil, err
		}
		for step, tmpl := range c.paths {
			c.paths[step] = cfg.PathPrefix + tmpl
		}
	}
	if c.location == nil {
		loc, err := time.LoadLocation(defaultLocation)
		if err != nil {
			return nil, fmt.Errorf("location: loading the default %s: %w", defaultLocation, err)
		}
		c.location = loc
	}
	if c.now == nil {
		c.now = time.Now
	}
	switch {
	case c.maxDocument == 0:
		c.maxDocument = DefaultMaxDocument
	case c.maxDocument < 0 || c.maxDocument > MaxMaxDocument:
		return nil, fmt.Errorf("max_document: %d must be 1..%d bytes", c.maxDocument, MaxMaxDocument)
	}
	c.maxTickets = int64(legacy.MaxReplyBytes-1<<20) / 4 * 3
	return c, nil
}

// Partner returns the partner's name, as configured.
func (c *Converter) Partner() string { return c.partner }

func checkTariffs(t map[int]PassengerTariff) error {
	if len(t) == 0 {
		return fmt.Errorf("tariff: the table is empty")
	}
	for code, p := range t {
		if code < 0 || code > 9999 {
			return fmt.Errorf("tariff %d: code must be 0..9999", code)
		}
		if !slices.Contains(osdm.PassengerTypes, p.Type) {
			return fmt.Errorf("tariff %d: passenger type %q is not one of the OSDM passenger types (%s)", code, p.Type, KnownPassengerTypes())
		}
		if p.Age < 0 || p.Age > 150 {
			return fmt.Errorf("tariff %d: age %d must be 0..150", code, p.Age)
		}
	}
	return nil
}

func checkReasons(r map[int]osdm.OverruleCode) error {
	for code, o := range r {
		if code < 0 || code > 9999 {
			return fmt.Errorf("reason %d: code must be 0..9999", code)
		}
		if !isUpperToken(string(o)) {
			return fmt.Errorf("reason %d: overrule code %q must be an OSDM overrule code such as TECHNICAL_FAILURE", code, o)
		}
	}
	return nil
}

// isUpperToken accepts the shape of OSDM extensible enum values:
// A-Z, 0-9 and underscores, starting with a letter.
func isUpperToken(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// KnownPassengerTypes lists the OSDM passenger types a tariff may name,
// for error texts.
func KnownPassengerTypes() string {
	s := make([]string, len(osdm.PassengerTypes))
	for i, t := range osdm.PassengerTypes {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// CheckPathPrefix checks a Config's PathPrefix as New does: an absolute
// plain path without a trailing slash, dot segments or placeholders.
func CheckPathPrefix(prefix string) error {
	switch {
	case !strings.HasPrefix(prefix, "/") || prefix == "/":
		return fmt.Errorf("path_prefix %q must start with / and name a folder, e.g. /osdm", prefix)
	case strings.HasSuffix(prefix, "/"):
		return fmt.Errorf("path_prefix %q must not end with /: every step's path starts with one", prefix)
	case strings.ContainsAny(prefix, "?#{} \t"):
		return fmt.Errorf("path_prefix %q must be a plain path (no query, fragment, placeholder or space)", prefix)
	}
	for _, seg := range strings.Split(prefix[1:], "/") {
		if seg == "" || isDotSegment(seg) {
			return fmt.Errorf("path_prefix %q has an empty or dot segment (//, . or ..), which a partner or proxy resolves to another path", prefix)
		}
	}
	return nil
}

// CheckPath checks the path template of one step as New does, for a
// configuration reader that wants the error at the line that sets it.
func CheckPath(step Step, tmpl string) error { return checkPath(step, tmpl) }

// checkPath checks a path override: a known step, an absolute path without
// query or fragment, and exactly the placeholders the step fills.
func checkPath(step Step, tmpl string) error {
	want, ok := stepParams[step]
	if !ok {
		known := make([]string, 0, len(stepParams))
		for s := range stepParams {
			known = append(known, string(s))
		}
		sort.Strings(known)
		return fmt.Errorf("path %s: unknown step (known: %s)", step, strings.Join(known, ", "))
	}
	if !strings.HasPrefix(tmpl, "/") {
		return fmt.Errorf("path %s: template %q must start with /", step, tmpl)
	}
	if strings.ContainsAny(tmpl, "?# \t") {
		return fmt.Errorf("path %s: template %q must be a plain path (no query, fragment or space)", step, tmpl)
	}
	for _, seg := range strings.Split(tmpl, "/") {
		if isDotSegment(seg) {
			return fmt.Errorf("path %s: template %q has a dot segment (. or ..), which a partner or proxy resolves to another path", step, tmpl)
		}
	}
	var got []string
	rest := tmpl
	for {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			break
		}
		if rest[open] == '}' {
			return fmt.Errorf("path %s: template %q has a } without {", step, tmpl)
		}
		end := strings.IndexAny(rest[open+1:], "{}")
		if end < 0 || rest[open+1+end] != '}' {
			return fmt.Errorf("path %s: template %q has an unclosed {", step, tmpl)
		}
		got = append(got, rest[open+1:open+1+end])
		rest = rest[open+1+end+1:]
	}
	for _, name := range got {
		if !contains(want, name) {
			return fmt.Errorf("path %s: template %q has {%s}; it may only hold %s", step, tmpl, name, placeholders(want))
		}
	}
	for _, name := range want {
		n := 0
		for _, g := range got {
			if g == name {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("path %s: template %q must hold {%s} exactly once", step, tmpl, name)
		}
	}
	return nil
}

func placeholders(names []string) string {
	if len(names) == 0 {
		return "no placeholder"
	}
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = "{" + n + "}"
	}
	return strings.Join(s, " and ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
