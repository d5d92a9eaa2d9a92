// Package osdmsandbox is an in-memory OSDM 3.9 partner railway: an
// http.Handler that searches offers, books, fulfils, exchanges, refunds (whole
// or by passenger) and deletes
// seat reservations on a made-up timetable or a GTFS one (Config.Feed), so
// the converter (and anyone trying OSDM) has a partner without a real
// railway.
//
// Operations, relative to any path prefix (the first segment that starts
// a path of the spec, trip-offers or _sandbox starts the OSDM path, so the
// handler works behind a route such as /osdm/* without stripping it):
//
//	POST   /offers                                 OfferCollectionResponse 200 (tripSearchCriteria or tripSpecifications)
//	GET    /trip-offers?originCode=...             the same, for older partners
//	POST   /bookings                               BookingResponse 200 (PREBOOKED)
//	GET    /bookings/{id}                          BookingResponse 200
//	DELETE /bookings/{id}                          204, provisional bookings only
//	GET    /bookings/{id}/passengers/{pid}         PassengerResponse 200
//	PATCH  /bookings/{id}/passengers/{pid}         PassengerResponse 200, before departure
//	POST   /bookings/{id}/fulfillments             FulfillmentCollectionResponse 200 (FULFILLED, with its ticket)
//	GET    /fulfillments/{fid}                     FulfillmentResponse 200 (with its ticket while FULFILLED)
//	POST   /bookings/{id}/refund-offers            RefundOfferCollectionResponse 200 (PROPOSED)
//	GET    /bookings/{id}/refund-offers/{rid}      RefundOfferResponse 200
//	PATCH  /bookings/{id}/refund-offers/{rid}      RefundOfferResponse 200 (CONFIRMED, REFUNDED)
//	DELETE /bookings/{id}/refund-offers/{rid}      204; 409 once confirmed
//	POST   /bookings/{id}/exchange-offers?embed=   ExchangeOfferCollectionResponse 200 (priced exchanges)
//	POST   /bookings/{id}/exchange-operations      ExchangeOperationResponse 200 (PREBOOKED, new places held)
//	GET    /bookings/{id}/exchange-operations/{x}  ExchangeOperationResponse 200
//	PATCH  /bookings/{id}/exchange-operations/{x}  ExchangeOperationResponse 200
//	DELETE /bookings/{id}/exchange-operations/{x}  204 while PREBOOKED; the fulfilment confirms it
//	GET    /_sandbox/bookings                      debug: every booking held (not OSDM)
//
// The spec's other operations answer 501, other methods 405, other paths
// 404. refundOffers (camelCase) is accepted for refund-offers. Errors are
// application/problem+json OSDM Problems whose code is one of the Code*
// constants, all of them standard codes of OSDM's errors-and-problems
// list. Times sent without an offset are local to their station.
//
// With a Feed, the trains are the feed's: a search by origin and
// destination plans journeys with up to Config.MaxChanges changes on it
// (package timetable's Plan), each a trip of timed legs with transfer legs
// between them and an offer of a reservation per train; trip
// specifications of several trains are checked against it (trains at
// their times, changes no shorter than the station's minimum). Without
// one, every train number has a deterministic timetable (see
// Config.Timetable for fixed ones). Numbers starting with 4 are night
// trains with seats,
// couchettes and berths. Places run out per train run (train and date),
// travel class and accommodation; a provisional booking holds its places
// until its confirmationTimeLimit, a fulfilled one until it is refunded.
// Idempotency-Key is honoured on every state-changing POST and PATCH.
//
// A FULFILLED fulfilment has its ticket: a PDF_A4 TICKET document
// (ticketpdf) in the top-level fulfillmentDocuments of the fulfilment
// answers and of the booking, rendered on demand from the booking, the
// same bytes every time; a refunded or exchanged fulfilment no longer
// offers it.
//
// State lives in memory behind one mutex, in one ledger that the desk of
// each concern (offers, bookings and their fulfilment, exchanges, refunds,
// passengers, documents) is handed when the Sandbox is made, and is
// bounded: offers, bookings and idempotency keys each hold at most
// Config.MaxEntries entries, expire on their own clocks and are dropped
// after Config.Retention.
//
// Pure Go: no Caddy import; caddymodule wraps it as osdm_sandbox.
package osdmsandbox
