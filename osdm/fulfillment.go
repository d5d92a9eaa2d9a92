package osdm

import "time"

// FulfillmentPostRequest is the body of POST /bookings/{bookingId}/fulfillments,
// which confirms the booking and issues its tickets. All fields are
// optional; the zero value marshals to {} (a POST always has a body).
type FulfillmentPostRequest struct {
	// IssuingLanguage asks for tickets in this language.
	IssuingLanguage string `json:"issuingLanguage,omitempty"`
}

// FulfillmentCollectionResponse is the 200 (or 202, asynchronous) body of
// POST /bookings/{bookingId}/fulfillments.
type FulfillmentCollectionResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// Fulfillments are the tickets issued.
	Fulfillments []Fulfillment `json:"fulfillments,omitempty"`
	// FulfillmentDocuments are the fulfilments' documents (each fulfilment
	// names its own in FulfillmentDocumentRefs).
	FulfillmentDocuments []FulfillmentDocument `json:"fulfillmentDocuments,omitempty"`
}

// FulfillmentResponse is the 200 body of GET /fulfillments/{fulfillmentId}.
type FulfillmentResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// Fulfillment is the ticket.
	Fulfillment *Fulfillment `json:"fulfillment,omitempty"`
	// FulfillmentDocuments are the fulfilment's documents.
	FulfillmentDocuments []FulfillmentDocument `json:"fulfillmentDocuments,omitempty"`
}

// Fulfillment is an issued ticket; id, status, bookingRef and createdOn are
// required.
type Fulfillment struct {
	// ID is the fulfilment id, used in refund offer requests.
	ID string `json:"id"`
	// Status is CONFIRMED, FULFILLED, REFUNDED...
	Status FulfillmentStatus `json:"status"`
	// BookingRef is the booking id.
	BookingRef string `json:"bookingRef"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// CreatedOn is when it was issued.
	CreatedOn time.Time `json:"createdOn"`
	// ControlNumber is the ticket control number.
	ControlNumber string `json:"controlNumber,omitempty"`
	// BookingParts are the booked parts it covers.
	BookingParts []BookingPartReference `json:"bookingParts,omitempty"`
	// FulfillmentDocumentRefs are the ids of its documents, listed in the
	// answer's top-level fulfillmentDocuments.
	FulfillmentDocumentRefs []string `json:"fulfillmentDocumentRefs,omitempty"`
	// DeprecatedDocuments is the fulfilment's own list of its documents,
	// deprecated by the spec in favour of the answer's top-level
	// fulfillmentDocuments; still read from partners that use it.
	DeprecatedDocuments []FulfillmentDocument `json:"fulfillmentDocuments,omitempty"`
	// ContentComplete is false while documents are still being generated;
	// nil when the partner does not say.
	ContentComplete *bool `json:"contentComplete,omitempty"`
}

// BookingPartReference names a booking part (id required).
type BookingPartReference struct {
	// ID is a BookingPart.ID.
	ID string `json:"id"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
}

// PathFulfillment is GET of one fulfilment (the spec's path: not under
// /bookings).
const PathFulfillment = "/fulfillments/{fulfillmentId}"
