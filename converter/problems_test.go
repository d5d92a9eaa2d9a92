package converter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestProblemTable runs each row of the problem table through Convert:
// the partner answers the first call with the status and problem, and the
// reply must carry the code, its HTTP status and the PartnerProblem.
func TestProblemTable(t *testing.T) {
	availability := func(id string) legacy.Request { return availabilityRequest(id) }
	booking := func(id string) legacy.Request { return bookingRequest(id, "offer-1") }
	cancel := func(id string) legacy.Request { return cancelRequest(id, "b-1", nil) }
	for _, tc := range []struct {
		req     func(string) legacy.Request
		status  int
		problem string
		want    legacy.Code
	}{
		{booking, 409, "urn:uic:problem:BOOKING_INSUFFICIENT_AVAILABILITY", legacy.CodeNoAvailability},
		{booking, 409, "urn:uic:problem:BOOKING_PLACE_NOT_AVAILABLE", legacy.CodeNoAvailability},
		{availability, 400, "urn:uic:problem:BOOKING_RESERVATION_OPTION_NOT_AVAILABLE", legacy.CodeNoAvailability},
		{booking, 409, "SOLD_OUT", legacy.CodeNoAvailability},
		{booking, 409, "urn:uic:problem:NO_AVAILABILITY", legacy.CodeNoAvailability},
		{availability, 400, "urn:uic:problem:OFFER_RESERVATION_OPTION_NOTA", legacy.CodeNoAvailability},
		{availability, 404, "urn:uic:problem:TRAIN_NOT_FOUND", legacy.CodeTrainNotFound},
		{availability, 404, "urn:uic:problem:OFFER_NO_RESULTS", legacy.CodeTrainNotFound},
		{cancel, 404, "urn:uic:problem:BOOKING_ALREADY_CANCELLED", legacy.CodeAlreadyCancelled},
		{cancel, 409, "urn:uic:problem:CONFIRMATION_BOOKING_ALREADY_CANCELLED", legacy.CodeAlreadyCancelled},
		{availability, 501, "urn:uic:problem:OPERATION_NOT_PERMITTED", legacy.CodePartnerRejected},
		{cancel, 501, "", legacy.CodePartnerRejected},
		{booking, 404, "urn:uic:problem:BOOKING_OFFER_NOT_FOUND", legacy.CodeOfferExpired},
		{booking, 400, "urn:uic:problem:OFFER_EXPIRED", legacy.CodeOfferExpired},
		{availability, 404, "urn:uic:problem:OFFER_TRIP_NOT_FOUND", legacy.CodeTrainNotFound},
		{availability, 400, "urn:uic:problem:TRIP_NO_SEARCH_RESULT", legacy.CodeTrainNotFound},
		{availability, 400, "urn:uic:problem:OFFER_PLACE_UNKNOWN", legacy.CodeTrainNotFound},
		{availability, 404, "urn:uic:problem:NO_RESULTS", legacy.CodeTrainNotFound},
		{booking, 404, "urn:uic:problem:RESOURCE_NOT_FOUND", legacy.CodeOfferExpired},
		{cancel, 404, "urn:uic:problem:RESOURCE_NOT_FOUND", legacy.CodeBookingNotFound},
		{cancel, 404, "urn:uic:problem:BOOKING_NOT_FOUND", legacy.CodeBookingNotFound},
		{cancel, 409, "urn:uic:problem:BOOKING_BOOKING_ALREADY_CANCELLED", legacy.CodeAlreadyCancelled},
		{cancel, 400, "urn:uic:problem:UNAUTHORIZED", legacy.CodeAuthenticationFailed},
		{availability, 503, "urn:uic:problem:SERVICE_UNAVAILABLE", legacy.CodePartnerUnavailable},
		{availability, 401, "", legacy.CodeAuthenticationFailed},
		{booking, 403, "urn:uic:problem:OPERATION_NOT_PERMITTED", legacy.CodeAuthenticationFailed},
		{availability, 404, "", legacy.CodeTrainNotFound},
		{booking, 404, "", legacy.CodeOfferExpired},
		{cancel, 404, "", legacy.CodeBookingNotFound},
		{availability, 408, "", legacy.CodePartnerTimeout},
		{availability, 504, "", legacy.CodePartnerTimeout},
		{availability, 429, "", legacy.CodePartnerUnavailable},
		{availability, 500, "urn:uic:problem:UNKNOWN_ERROR", legacy.CodePartnerUnavailable},
		{availability, 302, "", legacy.CodePartnerUnavailable},
		{booking, 400, "urn:uic:problem:VALIDATION_ERROR", legacy.CodePartnerRejected},
		{booking, 422, "X_NVS_NOMEAL", legacy.CodePartnerRejected},
		{cancel, 409, "", legacy.CodePartnerRejected},
	} {
		t.Run(fmt.Sprintf("%d %s", tc.status, tc.problem), func(t *testing.T) {
			var body []byte
			if tc.problem != "" {
				body = problemAnswer(tc.status, tc.problem, "detail").Body
				osdmspec.ValidateSchema(t, osdmspec.V39, "Problem", body)
			}
			s := &scripted{t: t, answers: []scriptedAnswer{{status: tc.status, body: body}}}
			res := testConverter(t, Config{}).Convert(context.Background(), tc.req("P-1"), s)
			checkReply(t, res)
			n := negativeOf(t, res)
			if n.Code != tc.want || res.Status != tc.want.HTTPStatus() || n.PartnerProblem != tc.problem {
				t.Errorf("reply %s (HTTP %d) problem %q, want %s (HTTP %d) problem %q: %s",
					n.Code, res.Status, n.PartnerProblem, tc.want, tc.want.HTTPStatus(), tc.problem, n.Text)
			}
		})
	}
}

func TestCallerErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want legacy.Code
	}{
		{fmt.Errorf("token for sbb: %w", ErrAuthentication), legacy.CodeAuthenticationFailed},
		{fmt.Errorf("upstream: %w", ErrTimeout), legacy.CodePartnerTimeout},
		{context.DeadlineExceeded, legacy.CodePartnerTimeout},
		{errors.New("dial tcp: connection refused"), legacy.CodePartnerUnavailable},
		{nil, legacy.CodePartnerUnavailable}, // no answer and no error
	} {
		x := CallerFunc(func(context.Context, *Call) (*Answer, error) { return nil, tc.err })
		res := testConverter(t, Config{}).Convert(context.Background(), availabilityRequest("E-1"), x)
		checkReply(t, res)
		if n := negativeOf(t, res); n.Code != tc.want || n.Retryable != tc.want.Retryable() {
			t.Errorf("%v: reply %s retryable %v, want %s", tc.err, n.Code, n.Retryable, tc.want)
		}
	}
}

// TestErrorTextIsSafe: whatever a partner writes in its problem ends up in
// the reply as one line of valid legacy text.
func TestErrorTextIsSafe(t *testing.T) {
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'x'
	}
	body := []byte(`{"code":"urn:uic:problem:X\n<forged>","title":"a\u0000b\u0007c","detail":"` + string(long) + `"}`)
	s := &scripted{t: t, answers: []scriptedAnswer{{status: http.StatusBadRequest, body: body}}}
	res := testConverter(t, Config{}).Convert(context.Background(), availabilityRequest("S-1"), s)
	checkReply(t, res)
	n := negativeOf(t, res)
	if len([]rune(n.Text)) > 1000 || n.PartnerProblem != "urn:uic:problem:X <forged>" {
		t.Errorf("text %d characters, problem %q", len([]rune(n.Text)), n.PartnerProblem)
	}
}

// TestPartnerEchoingTokenIsRedacted: a partner that quotes the access
// token it was sent in its problem (a 401's "invalid token ...", an echo
// of the request's headers), in any of its parts, gets it into neither
// the legacy reply (which goes to the legacy system) nor the reply's text
// the gateway logs as the exchange's reason: a JWT, the start of one cut
// short, or an opaque token after "Bearer".
func TestPartnerEchoingTokenIsRedacted(t *testing.T) {
	const (
		jwt    = "eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJnYXRld2F5In0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
		opaque = "opq8f3a9c2d7e1b4f6a0c5d8e2b7f1a3c9d"
	)
	for _, tc := range []struct{ name, code, title, detail, secret string }{
		{"jwt in detail", "urn:uic:problem:UNAUTHORIZED", "Unauthorized", "the access token " + jwt + " has expired", "c2lnbmF0dXJl"},
		{"jwt cut short", "urn:uic:problem:UNAUTHORIZED", "token eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJnYXRl", "", "eyJzdWIi"},
		{"headers echoed", "urn:uic:problem:VALIDATION_ERROR", "Bad request", "request headers: Accept: application/json; Authenticate: Bearer " + opaque, opaque[3:]},
		{"token as code", jwt, "", "", "c2lnbmF0dXJl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := http.StatusUnauthorized
			p := osdm.Problem{Code: tc.code, Title: tc.title, Status: &status, Detail: tc.detail}
			body, _ := marshal(p)
			s := &scripted{t: t, answers: []scriptedAnswer{{status: status, body: body}}}
			res := testConverter(t, Config{}).Convert(context.Background(), availabilityRequest("T-1"), s)
			checkReply(t, res)
			n := negativeOf(t, res)
			encoded, err := legacy.Encode(legacy.XML, n)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(encoded), tc.secret) {
				t.Errorf("the reply carries the partner's echo of the token: %s", encoded)
			}
			if n.Code != legacy.CodeAuthenticationFailed || !strings.Contains(n.Text, "[redacted]") {
				t.Errorf("reply %s %q: want AUTHENTICATION_FAILED naming a redacted part", n.Code, n.Text)
			}
		})
	}
}

// TestSandboxCodesReadAsBefore: each standard problem code osdm_sandbox
// answers now reads as the code it answered before in the same situation
// (call and status), so a legacy system sees the same NegativeReply codes.
// The new codes are the sandbox's constants: changing one breaks this test.
func TestSandboxCodesReadAsBefore(t *testing.T) {
	for _, tc := range []struct {
		step       Step
		status     int
		old, code  string
		wantLegacy legacy.Code
	}{
		{StepOffers, 404, "TRAIN_NOT_FOUND", osdm.CodeNoResults, legacy.CodeTrainNotFound},
		{StepTripOffers, 404, "TRAIN_NOT_FOUND", osdm.CodeNoResults, legacy.CodeTrainNotFound},
		{StepOffers, 200, "NO_AVAILABILITY", osdm.CodeInsufficientAvailability, legacy.CodeNoAvailability},
		{StepBooking, 409, "NO_AVAILABILITY", osdm.CodeInsufficientAvailability, legacy.CodeNoAvailability},
		{StepBooking, 404, "OFFER_EXPIRED", osdm.CodeOfferNotFound, legacy.CodeOfferExpired},
		{StepBooking, 400, "INVALID_REQUEST", osdm.CodeValidationError, legacy.CodePartnerRejected},
		{StepBooking, 422, "IDEMPOTENCY_KEY_REUSED", osdm.CodeOperationNotPermitted, legacy.CodePartnerRejected},
		{StepReadBooking, 404, "BOOKING_NOT_FOUND", osdm.CodeResourceNotFound, legacy.CodeBookingNotFound},
		{StepReadBooking, 404, "BOOKING_ALREADY_CANCELLED", osdm.CodeBookingAlreadyCancelled, legacy.CodeAlreadyCancelled},
		{StepDeleteBooking, 404, "BOOKING_ALREADY_CANCELLED", osdm.CodeBookingAlreadyCancelled, legacy.CodeAlreadyCancelled},
		{StepDeleteBooking, 409, "BOOKING_ALREADY_REFUNDED", osdm.CodeBookingAlreadyCancelled, legacy.CodeAlreadyCancelled},
		{StepDeleteBooking, 409, "BOOKING_ALREADY_FULFILLED", osdm.CodeAlreadyFulfilled, legacy.CodePartnerRejected},
		{StepFulfillments, 409, "BOOKING_ALREADY_REFUNDED", osdm.CodeConfirmationCancelled, legacy.CodeAlreadyCancelled},
		{StepRefundOffers, 409, "BOOKING_ALREADY_REFUNDED", osdm.CodeBookingAlreadyCancelled, legacy.CodeAlreadyCancelled},
		{StepRefundOffers, 409, "BOOKING_NOT_FULFILLED", osdm.CodeOperationNotPermitted, legacy.CodePartnerRejected},
		{StepRefundOffers, 404, "FULFILLMENT_NOT_FOUND", osdm.CodeResourceNotFound, legacy.CodeBookingNotFound},
		{StepRefundOffer, 404, "REFUND_OFFER_NOT_FOUND", osdm.CodeResourceNotFound, legacy.CodePartnerRejected},
		{StepRefundOffer, 409, "REFUND_OFFER_EXPIRED", osdm.CodeOperationNotPermitted, legacy.CodePartnerRejected},
		{StepOffers, 500, "INTERNAL_ERROR", osdm.CodeUnknownError, legacy.CodePartnerUnavailable},
	} {
		var oldCode, newCode legacy.Code
		if tc.status == 200 {
			// A problem inside a successful answer without offers.
			_, oldCode = firstProblem(tc.step, []osdm.Problem{{Code: "urn:uic:problem:" + tc.old}})
			_, newCode = firstProblem(tc.step, []osdm.Problem{{Code: tc.code}})
		} else {
			oldCode = classify(tc.step, tc.status, &osdm.Problem{Code: "urn:uic:problem:" + tc.old})
			newCode = classify(tc.step, tc.status, &osdm.Problem{Code: tc.code})
		}
		if oldCode != tc.wantLegacy || newCode != tc.wantLegacy {
			t.Errorf("%s %d: %s reads %s, %s reads %s, want both %s", tc.step, tc.status, tc.old, oldCode, tc.code, newCode, tc.wantLegacy)
		}
	}
}
