// Package legacysandbox is an in-memory legacy reservation system
// (Hermes/HOSA, UIC IRS 90918-1, in the form of legacy-protocol.md): the
// mirror of osdmsandbox for the reverse direction. It answers
// AvailabilityRequest, BookingRequest (with and without informationOnly)
// and CancelRequest in XML and JSON, in the form of the request, with the
// project's legacy codecs.
//
// What it simulates:
//
//   - A timetable (Schedule): the built-in Demo, where every train number
//     runs every day at times derived from its number (numbers made only
//     of zeros never run), or a GTFS feed (LoadGTFS, NewGTFSSchedule). A
//     train is its number and date: a request's DepartureTime is not
//     checked, its Carrier is echoed.
//   - Places per train run (train and service date), travel class and
//     service code that run out (Config.Capacity), with coach and place
//     numbers. A place is sold for the whole run, whatever the stations.
//     Demo trains whose number starts with 4 are night trains with
//     couchettes and berths besides seats; the others have seats only.
//   - Prices from a tariff table: a fare per class and service code
//     (Config.Fares) times a percentage per tariff code (Config.Tariffs).
//   - Bookings with a BookingRef, a ReservationReference and a
//     TicketControlNumber; CancelRequest refunds the price less a fee
//     (Config.CancelFeePercent; none when a reason code is given), then
//     ALREADY_CANCELLED; an unknown BookingRef is BOOKING_NOT_FOUND.
//   - The same reply to a resent messageId (per sender), and
//     INVALID_MESSAGE when the same messageId comes with another message.
//   - A ReplacementProposal for the trains of another reservation system
//     (Config.Foreign).
//   - TRAIN_NOT_FOUND for a train that does not run on the date, or does
//     not call at both stations in that order; NO_AVAILABILITY for a train
//     that has left.
//   - Config.Latency added to every answer.
//
// Replies, by request:
//
//	AvailabilityRequest               AvailabilityReply: one Offer for the class and
//	BookingRequest informationOnly    service code asked, whose AvailablePlaces says
//	                                  how many are left (fewer than asked, even 0);
//	                                  no Offer when the train has no such places
//	BookingRequest                    BookingReply CONFIRMED, or NO_AVAILABILITY
//	BookingRequest with ExchangeOf    EXCHANGE_NOT_SUPPORTED
//	CancelRequest                     CancelReply REFUNDED with RefundAmount and Fee
//	a train in Config.Foreign         ReplacementProposal (not for CancelRequest)
//
// HTTP (ServeHTTP): a message is the body of a POST to any path; the
// reply has the request's form and the HTTP status of its code
// (legacy.Code.HTTPStatus; 200 for the others). Bad input (another
// method, another Content-Type, a body over Config.MaxBody, a malformed or
// unknown message) is a NegativeReply too, never a Go error text. GET
// .../_sandbox/bookings lists the bookings held as JSON (BookingInfo; not
// a legacy message).
//
// State lives in memory behind one mutex: remembered replies and bookings
// are bounded by Config.MaxEntries and dropped after Config.Retention
// (bookings: after their train has left). Pure Go: no Caddy import;
// caddymodule wraps it as legacy_sandbox.
package legacysandbox
