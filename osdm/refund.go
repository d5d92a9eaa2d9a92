package osdm

import "time"

// RefundOfferRequest is the body of POST /bookings/{bookingId}/refund-offers;
// fulfillmentIds (>= 1) is required.
//
//	{"fulfillmentIds": ["f-1"], "overruleCode": "TECHNICAL_FAILURE"}
type RefundOfferRequest struct {
	// FulfillmentIDs are the Fulfillment.IDs to refund.
	FulfillmentIDs []string `json:"fulfillmentIds"`
	// RefundSpecifications ask for a partial refund (parts or passengers
	// removed from a fulfilment).
	RefundSpecifications []RefundSpecification `json:"refundSpecifications,omitempty"`
	// OverruleCode asks for a refund outside the normal conditions.
	OverruleCode OverruleCode `json:"overruleCode,omitempty"`
	// RefundDate is the date the refund is asked for (default: now).
	RefundDate *time.Time `json:"refundDate,omitempty"`
}

// RefundOfferCollectionResponse is the 200 body of
// POST /bookings/{bookingId}/refund-offers: a list, usually of one.
type RefundOfferCollectionResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// RefundOffers are the offers made.
	RefundOffers []RefundOffer `json:"refundOffers,omitempty"`
}

// RefundOfferResponse is the 200 body of PATCH (and GET)
// /bookings/{bookingId}/refund-offers/{refundOfferId}.
type RefundOfferResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// RefundOffer is the offer in its new state.
	RefundOffer *RefundOffer `json:"refundOffer,omitempty"`
}

// RefundOfferPatchRequest is the body of
// PATCH /bookings/{bookingId}/refund-offers/{refundOfferId}: {"status":"CONFIRMED"}.
type RefundOfferPatchRequest struct {
	// Status is the new state, RefundConfirmed to accept the offer.
	Status RefundStatus `json:"status"`
}

// RefundOffer is a proposed or confirmed refund; id, createdOn, validFrom,
// validUntil, status, fulfillments (>= 1), refundFee and refundableAmount
// are required.
type RefundOffer struct {
	// ID is the refund offer id, used in the PATCH path.
	ID string `json:"id"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// CreatedOn is when it was made.
	CreatedOn time.Time `json:"createdOn"`
	// ValidFrom and ValidUntil bound when it can be confirmed.
	ValidFrom  time.Time `json:"validFrom"`
	ValidUntil time.Time `json:"validUntil"`
	// ConfirmedOn is when it was confirmed.
	ConfirmedOn *time.Time `json:"confirmedOn,omitempty"`
	// Status is PROPOSED or CONFIRMED.
	Status RefundStatus `json:"status"`
	// AppliedOverruleCode is the overrule code the partner applied.
	AppliedOverruleCode OverruleCode `json:"appliedOverruleCode,omitempty"`
	// Fulfillments are the fulfilments refunded.
	Fulfillments []Fulfillment `json:"fulfillments"`
	// RefundFee is what the partner keeps.
	RefundFee Price `json:"refundFee"`
	// RefundableAmount is what is paid back.
	RefundableAmount Price `json:"refundableAmount"`
}

// RefundSpecification asks to refund part of a fulfilment (fulfillmentId
// required): some booking parts or some passengers.
type RefundSpecification struct {
	// FulfillmentID is the fulfilment to take parts from.
	FulfillmentID string `json:"fulfillmentId"`
	// BookingPartIDs are the parts to remove.
	BookingPartIDs []string `json:"bookingPartIds,omitempty"`
	// PassengerIDs are the passengers to remove.
	PassengerIDs []string `json:"passengerIds,omitempty"`
}
