package legacysandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// An OfferRef is "OF-<train>-<yyyymmdd>-<class><service>-<valid until,
// Unix seconds in base 36>-<signature>": the signature is an HMAC, with a
// key of this Sandbox, over the train, date, stations, class, service code,
// tariffs and validity, so a BookingRequest that gives one back is checked
// without any state kept per offer.

// offerRef makes the OfferRef of an offer for j and p valid until until.
func (s *Sandbox) offerRef(j legacy.Journey, p legacy.PlaceRequest, until time.Time) string {
	exp := strconv.FormatInt(until.Unix(), 36)
	return "OF-" + j.TrainNumber + "-" + strings.ReplaceAll(j.DepartureDate, "-", "") + "-" +
		strconv.Itoa(p.TravelClass) + strconv.Itoa(p.ServiceCode) + "-" + exp + "-" + s.offerSignature(j, p, exp)
}

// offerSignature signs what an offer is for.
func (s *Sandbox) offerSignature(j legacy.Journey, p legacy.PlaceRequest, exp string) string {
	mac := hmac.New(sha256.New, s.offerKey)
	var b strings.Builder
	b.WriteString(j.TrainNumber + "|" + j.DepartureDate + "|" + j.From + "|" + j.To + "|" +
		strconv.Itoa(p.TravelClass) + "|" + strconv.Itoa(p.ServiceCode) + "|" + exp)
	for _, t := range p.Tariffs {
		b.WriteString("|" + strconv.Itoa(t.Code) + "x" + strconv.Itoa(t.Count))
	}
	mac.Write([]byte(b.String()))
	return hex.EncodeToString(mac.Sum(nil)[:8])
}

// checkOfferRef returns nil when m.OfferRef was made by this sandbox for
// m's journey, class, service code and tariffs and is still valid;
// otherwise the NegativeReply: INVALID_MESSAGE for one made elsewhere or
// for another request, OFFER_EXPIRED for one past its ValidUntil.
func (s *Sandbox) checkOfferRef(now time.Time, h legacy.ReplyHeader, m *legacy.BookingRequest) legacy.Reply {
	ref := m.OfferRef
	i := strings.LastIndexByte(ref, '-')
	var exp string
	if i > 0 {
		if k := strings.LastIndexByte(ref[:i], '-'); k > 0 {
			exp = ref[k+1 : i]
		}
	}
	until, err := strconv.ParseInt(exp, 36, 64)
	if err != nil || !strings.HasPrefix(ref, "OF-") || !hmac.Equal([]byte(ref), []byte(s.offerRef(m.Journey, m.Places, time.Unix(until, 0)))) {
		return legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
			"OfferRef "+shortRef(ref)+" was not given by this system for this train, date, stations, class, service code and tariffs; ask for availability again")
	}
	if !now.Before(time.Unix(until, 0)) {
		return legacy.NewNegativeReply(h, legacy.CodeOfferExpired,
			"OfferRef "+shortRef(ref)+" expired at "+time.Unix(until, 0).UTC().Format(time.RFC3339)+"; ask for availability again")
	}
	return nil
}

// shortRef quotes at most 60 bytes of a reference for a text.
func shortRef(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}
