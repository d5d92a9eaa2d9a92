// Package testrig holds the pieces of test rigs that the Caddy test harness
// (caddymodule/internal/harness) and the tests of the packages without Caddy
// (store, tokenauth, internal/redistest) share: free ports of 127.0.0.1
// handed out once per test binary, child processes that are the test
// binary run again as one of its tests, the bound on a call that must
// not hang, and the header and body of a test's JSON request. It imports no Caddy package.
package testrig
