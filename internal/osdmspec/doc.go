// Package osdmspec validates OSDM JSON against the official OSDM OpenAPI
// specification (testdata/, Apache-2.0, see testdata/SOURCE.md) with
// github.com/getkin/kin-openapi.
//
// It is a test helper: import it only from _test.go files, so that
// kin-openapi and the 1.3 MB of embedded specification never reach a
// production binary (TestImportedOnlyFromTests enforces this).
//
// Every function takes a testing.TB and reports violations with tb.Errorf,
// one line per violation, each starting with the JSON pointer of the
// offending value, so a failing test says exactly which field is wrong.
package osdmspec
