// Package bench holds the side-by-side benchmarks of caddy-osdm
// in a module of their own, so that their load-generation and peer
// dependencies (vegeta, golang.org/x/oauth2, fosite) stay out of the
// product's go.mod.
//
// The micro-benchmarks here run our code and its peer in the same process
// on the same input:
//
//	go test -run '^$' -bench . -benchmem
//
// The end-to-end comparison is bench/run.sh, which drives Caddy processes
// with cmd/load; BENCHMARKS.md at the repository root has the figures.
package bench
