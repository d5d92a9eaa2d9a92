// Package osdmlegacy is the OSDM -> legacy direction of caddy-osdm: an
// OSDM provider (a façade) in front of a reservation system that speaks
// only the legacy Hermes/HOSA protocol (UIC 90918-1). Each OSDM call
// becomes the legacy messages it stands for (docs/mapping.md), sent
// through a Sender, and their replies become the OSDM answer.
//
// The reverse direction is realisable only with restrictions on the
// possible reservations (direct trains, known trains, UIC stations,
// reservations only, 1..9 passengers with a legacy tariff each, one offer
// per booking, whole refunds); a request outside them gets an OSDM problem
// that names the restriction and the request's JSON pointer, never a guess.
//
// The package is pure Go, without Caddy: Facade.ServeClient takes an
// HTTP-shaped request (method, path, header, body) and a Sender, and
// returns an Answer (status, header, body) plus what the caller logs and
// counts.
//
// The Facade only routes (routes.go) and holds what is shared (core.go:
// configuration, store, clock, background sender). Each call is served by
// one part, a type with its own files that is given the parts it calls:
// offers (searches, offer ids), bookings (a booking of one train), journeys
// (a journey with changes: one booking per leg), exchanges, refunds,
// passengers, documents (fulfilments, ticket documents) and settlement
// (intents, SynchroRequests, releasing holds).
package osdmlegacy
