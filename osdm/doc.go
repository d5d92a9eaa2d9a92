// Package osdm holds the OSDM 3.x types the converter and the sandbox
// partner exchange: the offer search, booking, fulfilment and refund
// messages and the Problem error body. Names and JSON follow the OSDM
// 3.9.0 specification (internal/osdmspec/testdata, which the tests
// validate against), plus Problem.alternativeSystemProposals of the v3.10
// tree.
//
// The types are a tolerant reader and a correct writer:
//   - unknown fields are ignored (encoding/json's default), so a partner on
//     a newer OSDM version does not break us;
//   - enums are string types with named constants; a value we do not know is
//     kept as it came, never rejected;
//   - optional fields are pointers or omitempty, required ones are plain,
//     so what we marshal from a filled-in value validates against the spec
//     (tests prove it with internal/osdmspec).
//
// Only what a converter from a seat-reservation legacy system needs is
// modelled; everything else in an OSDM message is skipped on reading.
//
// It is also the one owner of the OSDM vocabulary both providers
// (osdm_legacy, osdm_sandbox) share: the table of every operation of the
// spec (SpecOperations), the Router that both route with (a provider's
// table is rows of Route: an operation and its handler), the path
// parameters, the problem-code catalogue (ProblemCatalogue: code, title,
// statuses) and the one problem builder (ProblemError, NewProblem).
//
// Pure Go: no Caddy, no kin-openapi.
package osdm
