package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Headers that tell sequenceTransport to follow a booking with its
// fulfilment; they are removed before the request is sent.
const (
	headerThenFulfil    = "X-Bench-Then-Fulfil"
	headerFulfilIdemKey = "X-Bench-Fulfil-Idempotency-Key"
)

// sequenceTransport lets one vegeta hit be the two OSDM calls of a booking
// sent directly through the bare proxy (D's floor): a request marked with
// headerThenFulfil is POST /bookings; when it succeeds, the transport
// posts the fulfilment of the new booking and answers with that second
// response, so vegeta times and counts the pair as one request, as it does
// the converter's single legacy BookingRequest.
type sequenceTransport struct {
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *sequenceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(headerThenFulfil) == "" {
		return t.next.RoundTrip(req)
	}
	key := req.Header.Get(headerFulfilIdemKey)
	req = req.Clone(req.Context())
	req.Header.Del(headerThenFulfil)
	req.Header.Del(headerFulfilIdemKey)
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	var booked struct {
		Booking struct {
			ID string `json:"id"`
		} `json:"booking"`
	}
	if err := json.Unmarshal(body, &booked); err != nil || booked.Booking.ID == "" {
		return nil, fmt.Errorf("POST /bookings answered %d without a booking id", resp.StatusCode)
	}
	u := *req.URL
	u.Path = "/bookings/" + booked.Booking.ID + "/fulfillments"
	u.RawPath = "/bookings/" + url.PathEscape(booked.Booking.ID) + "/fulfillments"
	f, err := http.NewRequestWithContext(req.Context(), http.MethodPost, u.String(), strings.NewReader("{}"))
	if err != nil {
		return nil, err
	}
	f.Header = jsonHeader("")
	f.Header.Set("Authorization", req.Header.Get("Authorization"))
	f.Header.Set("Idempotency-Key", key)
	return t.next.RoundTrip(f)
}
