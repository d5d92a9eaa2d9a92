package osdm

import "time"

// Path templates of the exchange operations.
const (
	// PathExchangeOffers is POST: exchange offers for fulfilments of a
	// booking. Its embed query parameter, required by the spec, is read
	// as ALL when absent (ReadExchangeEmbed).
	PathExchangeOffers = "/bookings/{bookingId}/exchange-offers"
	// PathExchangeOperations is POST: an exchange offer pre-booked.
	PathExchangeOperations = "/bookings/{bookingId}/exchange-operations"
	// PathExchangeOperation is GET, PATCH and DELETE of one exchange
	// operation.
	PathExchangeOperation = "/bookings/{bookingId}/exchange-operations/{exchangeOperationId}"
)

// EmbedAll is the embed value that answers every referenced resource in
// full (ExchangeOfferCollectionResponseContent, ExchangeOperationResponseContent).
const EmbedAll = "ALL"

// ExchangeOfferCollectionRequest is the body of POST
// /bookings/{bookingId}/exchange-offers: fulfillmentIds (>= 1) and
// anonymousPassengerSpecifications (>= 1) are required, and a trip
// search or specification says what to exchange to.
type ExchangeOfferCollectionRequest struct {
	// FulfillmentIDs are the fulfilments to exchange.
	FulfillmentIDs []string `json:"fulfillmentIds"`
	// OverruleCode asks for an exchange outside the normal conditions.
	OverruleCode OverruleCode `json:"overruleCode,omitempty"`
	// TripSearchCriteria searches the new trip.
	TripSearchCriteria *TripSearchCriteria `json:"tripSearchCriteria,omitempty"`
	// OfferSearchCriteria narrows the new offers.
	OfferSearchCriteria *OfferSearchCriteria `json:"offerSearchCriteria,omitempty"`
	// AnonymousPassengerSpecifications are the passengers exchanged.
	AnonymousPassengerSpecifications []AnonymousPassengerSpecification `json:"anonymousPassengerSpecifications"`
}

// ExchangeOfferCollectionResponse is the 200 body of POST
// /bookings/{bookingId}/exchange-offers.
type ExchangeOfferCollectionResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// ExchangeOffers are the offers made.
	ExchangeOffers []ExchangeOffer `json:"exchangeOffers,omitempty"`
	// Trips are the new trips.
	Trips []Trip `json:"trips,omitempty"`
	// Passengers are the passengers exchanged (embed PASSENGERS).
	Passengers []Passenger `json:"passengers,omitempty"`
}

// ExchangeOffer is an offer to exchange fulfilments for a new trip:
// exchangeFee, exchangePrice, fulfillments (>= 1), offerId, createdOn,
// preBookableUntil, passengerRefs (>= 1) and admissionOfferParts are
// required. At most one of refundableAmount and amountToBePaid is set.
type ExchangeOffer struct {
	// ExchangeFee is what the exchange costs.
	ExchangeFee Price `json:"exchangeFee"`
	// ExchangePrice is the price of the new booking parts.
	ExchangePrice Price `json:"exchangePrice"`
	// RefundableAmount is paid back when the new trip is cheaper.
	RefundableAmount *Price `json:"refundableAmount,omitempty"`
	// AmountToBePaid is paid on top when it is dearer.
	AmountToBePaid *Price `json:"amountToBePaid,omitempty"`
	// AppliedOverruleCode is the overrule code applied.
	AppliedOverruleCode OverruleCode `json:"appliedOverruleCode,omitempty"`
	// Fulfillments are the fulfilments exchanged.
	Fulfillments []Fulfillment `json:"fulfillments"`
	// OfferID is what an exchange operation books.
	OfferID string `json:"offerId"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// OfferSummary sums the new offer up.
	OfferSummary *OfferSummary `json:"offerSummary,omitempty"`
	// CreatedOn is when it was made.
	CreatedOn time.Time `json:"createdOn"`
	// PreBookableUntil is when it can last be pre-booked.
	PreBookableUntil time.Time `json:"preBookableUntil"`
	// PassengerRefs are the passengers' externalRefs.
	PassengerRefs []string `json:"passengerRefs"`
	// Products are the new products.
	Products []Product `json:"products,omitempty"`
	// TripCoverage is the new trip covered.
	TripCoverage *TripCoverage `json:"tripCoverage,omitempty"`
	// AdmissionOfferParts are the new admissions (required, may be empty).
	AdmissionOfferParts []AdmissionOfferPart `json:"admissionOfferParts"`
	// ReservationOfferParts are the new reservations.
	ReservationOfferParts []ReservationOfferPart `json:"reservationOfferParts,omitempty"`
}

// ExchangeOperationRequest is the body of POST
// /bookings/{bookingId}/exchange-operations: the exchange offer to
// pre-book (exactly the selection of a booking).
type ExchangeOperationRequest struct {
	// ExchangeOffers are the exchange offers chosen (>= 1).
	ExchangeOffers []OfferSelection `json:"exchangeOffers"`
}

// ExchangeOperationPatchRequest is the body of PATCH of an exchange
// operation: fulfilment settings, nothing that confirms it (the
// fulfilment does).
type ExchangeOperationPatchRequest struct {
	// RequestedFulfillmentType is the fulfilment type asked for.
	RequestedFulfillmentType string `json:"requestedFulfillmentType,omitempty"`
	// Embed influences what the answer embeds.
	Embed []string `json:"embed,omitempty"`
}

// ExchangeStatus is the state of an exchange operation.
type ExchangeStatus string

// Exchange statuses (closed enum).
const (
	ExchangePrebooked ExchangeStatus = "PREBOOKED"
	ExchangeConfirmed ExchangeStatus = "CONFIRMED"
	ExchangeFulfilled ExchangeStatus = "FULFILLED"
	// ExchangeError: the exchange did not happen; the booking stands as
	// it was.
	ExchangeError ExchangeStatus = "ERROR"
)

// ExchangeOperationResponse is the 200 body of POST, GET and PATCH of an
// exchange operation.
type ExchangeOperationResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// ExchangeOperation is the operation in its state.
	ExchangeOperation *ExchangeOperation `json:"exchangeOperation,omitempty"`
}

// ExchangeOperation is an exchange under way or done (id required).
type ExchangeOperation struct {
	// ID is the operation id, used in its path.
	ID string `json:"id"`
	// Status is PREBOOKED until the fulfilment confirms it.
	Status ExchangeStatus `json:"status,omitempty"`
	// ExchangeOffers are the offers pre-booked.
	ExchangeOffers []ExchangeOffer `json:"exchangeOffers,omitempty"`
	// TicketTimeLimit is when a pre-booked operation lapses.
	TicketTimeLimit *time.Time `json:"ticketTimeLimit,omitempty"`
	// Fulfillments are the new fulfilments, once confirmed.
	Fulfillments []Fulfillment `json:"fulfillments,omitempty"`
	// Trips are the new trips.
	Trips []Trip `json:"trips,omitempty"`
}
