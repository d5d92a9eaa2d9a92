// Package converter turns one legacy Hermes/HOSA message (UIC 90918-1) into
// the OSDM calls it stands for, and the partner's OSDM answers into the
// legacy reply. It has no Caddy dependency: the OSDM calls go through the
// small Caller interface, which osdm_convert implements on Caddy's next
// handler and tests implement with a scripted partner.
//
// # Words
//
//   - An exchange is one legacy message and everything done for it: the
//     OSDM calls it stands for, its journal record (exchangeRecord, the
//     "exchanges under way" that Settle finishes) and its legacy reply.
//     It is never one HTTP request.
//   - A call is one OSDM HTTP request and its answer (Call, Answer),
//     made by a Caller; an exchange makes zero or more calls.
//   - A journaled exchange (Journal) runs with the journal as its ledger
//     (journal_run.go): the run tells it, at each call that commits the
//     partner, what it sends and what it decoded from the answer, and the
//     journal records that (the booking's intent, its id, the refund offer
//     or exchange operation made, each confirmation about to be sent). A
//     Caller only makes calls; a run without a journal tells no one.
//   - A ticket exchange (ExchangeOf on an AvailabilityRequest or
//     BookingRequest; exchange.go, OSDM's exchange offers and operations)
//     moves a booking to another journey; code and docs say "ticket
//     exchange" or name ExchangeOf where the two could be confused.
//
// # The calls each message makes
//
//   - AvailabilityRequest, and BookingRequest with informationOnly: the
//     offer search, POST /offers (or GET /trip-offers, see tripOffersQuery)
//     for the train, stations, departure time, travel class and one
//     passenger per place; the answer's offers of the asked class and kind
//     of place become the AvailabilityReply (none is an AvailabilityReply
//     without offers, not a NegativeReply).
//   - BookingRequest with an OfferRef: POST /bookings for that offer, then
//     POST /bookings/{bookingId}/fulfillments with {}.
//   - BookingRequest without an OfferRef: the offer search first, then the
//     cheapest matching offer with enough places is booked and fulfilled;
//     none is NO_AVAILABILITY.
//   - AvailabilityRequest with ExchangeOf: GET /bookings/{bookingId}, then
//     POST .../exchange-offers?embed=ALL for its passengers still holding
//     places; the offers get their Exchange element.
//   - BookingRequest with ExchangeOf: the same (exchange offers only
//     without an OfferRef), POST .../exchange-operations, POST
//     .../fulfillments to confirm, GET the booking for the reply; a failure
//     before the confirmation deletes the operation (the old booking
//     stands): EXCHANGE_NOT_POSSIBLE, or EXCHANGE_NOT_SUPPORTED for a 501.
//   - CancelRequest with Place elements: the passengers of those places
//     refunded through refundSpecifications (PARTIALLY_REFUNDED).
//   - SynchroRequest: answered from the journal; with rollback, the
//     booking of the original message deleted or refunded under
//     TECHNICAL_FAILURE (settle.go); one wholly cancelled since is
//     ALREADY_CANCELLED, as a CancelRequest would be.
//   - PassengerDataRequest: PATCH /bookings/{bookingId}/passengers/{id}
//     per passenger, set back when the partner refuses one.
//   - CancelRequest: GET /bookings/{bookingId}; live fulfilments are
//     refunded with POST .../refund-offers (overruleCode from the reason
//     table when a reason code is given) and PATCH
//     .../refund-offers/{refundOfferId} {"status":"CONFIRMED"}; a booking
//     never confirmed is deleted with DELETE /bookings/{bookingId}; one
//     already cancelled or refunded is ALREADY_CANCELLED.
//   - TicketRequest: GET /bookings/{bookingId}, then GET
//     /fulfillments/{fulfillmentId} per live fulfilment for its documents
//     (the answer's fulfillmentDocuments, else the fulfilment's deprecated
//     list, else the booking's documents it names), and GET of each
//     document's downloadLink (its path and query, through the same
//     Caller); every fulfilment is a Ticket (ticket.go). Not journaled,
//     not kept for resends.
//   - ALTERNATIVE_SYSTEM_PROPOSAL, in a 200's problems or as a 4xx problem,
//     from the offer search or POST /bookings: a ReplacementProposal.
//
// Unknown tariff and reason codes are refused with INVALID_MESSAGE before
// any call. A failed call becomes a NegativeReply by the table of
// problems.go.
//
// # Headers and idempotency
//
// Every call has Accept: application/json; POST and PATCH have
// Content-Type: application/json and a JSON body ({} at least). The calls
// whose OSDM 3.9 operation declares Idempotency-Key carry one: POST
// /bookings, POST .../fulfillments, POST .../refund-offers, PATCH
// .../refund-offers/{refundOfferId}, POST .../exchange-offers and POST
// .../exchange-operations. Its value is IdempotencyKey(partner,
// messageId, step), a name-based UUID (v5): a message resent to any Caddy
// instance repeats its calls with the same keys. DELETE /bookings/{id}
// declares no such header (it is idempotent by HTTP semantics) and gets
// none. traceparent is the Caller's to add.
//
// # Rollback
//
// When POST /bookings succeeded but fulfilment fails, a failure that
// leaves the outcome open (5xx, transport error, timeout, an unreadable
// 2xx) is retried once with the same key; then, or at once for a refusal,
// the booking is deleted with DELETE /bookings/{bookingId}, on a context
// detached from the exchange's and bounded by RollbackGrace, so that it is
// made even when the exchange's deadline has passed. The reply is
// BOOKING_ROLLED_BACK naming the booking (retryable unless the partner
// refused the confirmation); if the DELETE fails too, a NegativeReply that
// still names the booking and says it may exist at the partner, retryable
// (the provisional booking expires by itself) unless the partner refused
// the DELETE with a 4xx, which means it most likely holds the booking
// confirmed and a new booking would sell the places twice. A refund
// offer that cannot be confirmed is a retryable NegativeReply naming the
// booking and the refund offer.
//
// # Time zones
//
// A legacy DepartureTime is local time at the departure station (00:00
// when absent). The zone is the railway's of the station's UIC country
// (the first two digits of its code, table in osdm/station_zone.go), or
// Config.Location (default Europe/Paris) for a country not in the table.
// Times in replies are written back in the zone of their station.
package converter
