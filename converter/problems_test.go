package converter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
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

func TestExchangerErrors(t *testing.T) {
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
		x := ExchangerFunc(func(context.Context, *Call) (*Answer, error) { return nil, tc.err })
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
