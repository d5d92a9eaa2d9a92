package osdmspec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// ValidateRequest checks an OSDM request against the operation that method
// and path (relative to the spec's servers, e.g. "/offers" or
// "/bookings/b-1/fulfillments"; a query string is allowed) select in the
// given version: path and query parameters, headers the spec declares (e.g.
// Idempotency-Key must be a UUID), content type and body. Authentication is
// not checked. A nil header stands for {"Content-Type": "application/json"};
// a non-nil header is used as given, so a test can prove the caller sets it.
func ValidateRequest(tb testing.TB, version Version, method, path string, header http.Header, body []byte) {
	tb.Helper()
	if err := checkRequest(version, method, path, header, body); err != nil {
		tb.Errorf("OSDM %s %s %s: request violates the spec:\n%s", version, method, path, err)
	}
}

// ValidateResponse checks an OSDM response for the operation that method and
// path select: the status must be one the operation lists (its "default"
// counts), and headers and body must match that response. A nil header
// stands for Content-Type application/json below 400 and
// application/problem+json from 400 on.
func ValidateResponse(tb testing.TB, version Version, method, path string, status int, header http.Header, body []byte) {
	tb.Helper()
	if err := checkResponse(version, method, path, status, header, body); err != nil {
		tb.Errorf("OSDM %s %s %s -> %d: response violates the spec:\n%s", version, method, path, status, err)
	}
}

// ValidateSchema checks a JSON document against the named schema
// schemaName (e.g. "Problem", "OfferCollectionResponse",
// "AlternativeSystemProposal" in V310).
func ValidateSchema(tb testing.TB, version Version, schemaName string, body []byte) {
	tb.Helper()
	if err := checkSchema(version, schemaName, body); err != nil {
		tb.Errorf("OSDM %s schema %s: document violates the spec:\n%s", version, schemaName, err)
	}
}

// filterOptions are the openapi3filter options every check uses.
func filterOptions(s *spec) *openapi3filter.Options {
	return &openapi3filter.Options{
		MultiError:              true,
		IncludeResponseStatus:   true,
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: s.schemaOpts,
	}
}

// requestInput is a request routed to its operation.
type requestInput = openapi3filter.RequestValidationInput

func newRequest(s *spec, method, path string, header http.Header, body []byte) (*requestInput, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path %q must start with /", path)
	}
	req, err := http.NewRequest(method, "http://osdm.invalid"+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if header == nil {
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Header = header.Clone()
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		return nil, fmt.Errorf("no operation %s %s in the spec: %w", method, path, err)
	}
	return &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: params,
		Route:      route,
		Options:    filterOptions(s),
	}, nil
}

func checkRequest(version Version, method, path string, header http.Header, body []byte) error {
	s, err := load(version)
	if err != nil {
		return err
	}
	in, err := newRequest(s, method, path, header, body)
	if err != nil {
		return err
	}
	return violations(openapi3filter.ValidateRequest(context.Background(), in))
}

func checkResponse(version Version, method, path string, status int, header http.Header, body []byte) error {
	s, err := load(version)
	if err != nil {
		return err
	}
	in, err := newRequest(s, method, path, http.Header{}, nil)
	if err != nil {
		return err
	}
	if header == nil {
		header = http.Header{}
		if status < 400 {
			header.Set("Content-Type", "application/json")
		} else {
			header.Set("Content-Type", "application/problem+json")
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                in.Options,
	}
	return violations(openapi3filter.ValidateResponse(context.Background(), out))
}

func checkSchema(version Version, schemaName string, body []byte) error {
	s, err := load(version)
	if err != nil {
		return err
	}
	found := s.schemas[schemaName]
	if len(found) == 0 {
		return fmt.Errorf("no schema %q in OSDM %s", schemaName, version)
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	opts := append([]openapi3.SchemaValidationOption{openapi3.MultiErrors()}, s.schemaOpts...)
	return violations(found[0].VisitJSON(value, opts...))
}
