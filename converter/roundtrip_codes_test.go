package converter

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

// TestNegativeReplyRoundTrip holds docs/mapping.md ("Legacy NegativeReply
// to OSDM problem") to the code: a NegativeReply of a far legacy system,
// answered by osdm_legacy as an OSDM problem and read by this converter at
// the step where the far side gives it, comes back as the same code for
// the eight codes the doc names, and as PARTNER_REJECTED or
// PARTNER_UNAVAILABLE for the others.
func TestNegativeReplyRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		code legacy.Code
		step Step
		want legacy.Code
	}{
		{legacy.CodeNoAvailability, StepOffers, legacy.CodeNoAvailability},
		{legacy.CodeTrainNotFound, StepOffers, legacy.CodeTrainNotFound},
		{legacy.CodeOfferExpired, StepBooking, legacy.CodeOfferExpired},
		{legacy.CodeBookingNotFound, StepReadBooking, legacy.CodeBookingNotFound},
		{legacy.CodeAlreadyCancelled, StepRefundOffers, legacy.CodeAlreadyCancelled},
		{legacy.CodePartnerRejected, StepBooking, legacy.CodePartnerRejected},
		{legacy.CodePartnerUnavailable, StepBooking, legacy.CodePartnerUnavailable},
		{legacy.CodePartnerTimeout, StepBooking, legacy.CodePartnerTimeout},
		{legacy.CodeUnsupportedMessage, StepBooking, legacy.CodePartnerRejected},
		{legacy.CodeExchangeNotSupported, StepBooking, legacy.CodePartnerRejected},
		{legacy.CodeInvalidMessage, StepBooking, legacy.CodePartnerUnavailable},
		{legacy.CodeAuthenticationFailed, StepBooking, legacy.CodePartnerUnavailable},
		{legacy.CodeBookingRolledBack, StepBooking, legacy.CodePartnerUnavailable},
	} {
		p := osdmlegacy.NegativeProblem(&legacy.NegativeReply{Code: tc.code, Text: "far side"}, "")
		got := classify(tc.step, p.Status, &osdm.Problem{Code: p.Code, Detail: p.Detail})
		if got != tc.want {
			t.Errorf("%s -> %d %s -> %s, want %s", tc.code, p.Status, p.Code, got, tc.want)
		}
	}
}
