package osdm

import "time"

// OfferCollectionResponse is the 200 body of POST /offers. A partner may
// answer offers and problems together (e.g. ALTERNATIVE_SYSTEM_PROPOSAL for
// one leg).
type OfferCollectionResponse struct {
	// Problems are business problems, in a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// Offers are the offers found.
	Offers []Offer `json:"offers,omitempty"`
	// Trips are the trips the offers cover (by TripCoverage.CoveredTripID).
	Trips []Trip `json:"trips,omitempty"`
	// AnonymousPassengerSpecifications echoes the passengers of the search.
	AnonymousPassengerSpecifications []AnonymousPassengerSpecification `json:"anonymousPassengerSpecifications,omitempty"`
}

// Offer is a bookable offer; offerId, createdOn, preBookableUntil and
// passengerRefs (>= 1) are required.
type Offer struct {
	// OfferID is what POST /bookings books.
	OfferID string `json:"offerId"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// OfferSummary gives the overall price and classes.
	OfferSummary *OfferSummary `json:"offerSummary,omitempty"`
	// CreatedOn is when the partner made the offer.
	CreatedOn time.Time `json:"createdOn"`
	// PreBookableUntil is the offer's expiry for booking.
	PreBookableUntil time.Time `json:"preBookableUntil"`
	// PassengerRefs are the externalRefs of the passengers covered.
	PassengerRefs []string `json:"passengerRefs"`
	// Products describe the products the offer parts sell (classes live here).
	Products []Product `json:"products,omitempty"`
	// TripCoverage says which trip the offer covers.
	TripCoverage *TripCoverage `json:"tripCoverage,omitempty"`
	// AdmissionOfferParts are tickets (right to travel).
	AdmissionOfferParts []AdmissionOfferPart `json:"admissionOfferParts,omitempty"`
	// ReservationOfferParts are seat reservations.
	ReservationOfferParts []ReservationOfferPart `json:"reservationOfferParts,omitempty"`
}

// Product returns the offer's product with the given id, or nil.
func (o *Offer) Product(id string) *Product {
	for i := range o.Products {
		if o.Products[i].ID == id {
			return &o.Products[i]
		}
	}
	return nil
}

// OfferSummary sums up an offer; minimalPrice, overallServiceClass and
// overallFlexibility are required.
type OfferSummary struct {
	// MinimalPrice is the cheapest price of the offer.
	MinimalPrice Price `json:"minimalPrice"`
	// OverallServiceClass is the comfort level.
	OverallServiceClass ServiceClass `json:"overallServiceClass"`
	// OverallTravelClass is first or second class.
	OverallTravelClass TravelClass `json:"overallTravelClass,omitempty"`
	// OverallAccommodationType is SEAT, COUCHETTE...
	OverallAccommodationType AccommodationType `json:"overallAccommodationType,omitempty"`
	// OverallAccommodationSubType refines it.
	OverallAccommodationSubType AccommodationSubType `json:"overallAccommodationSubType,omitempty"`
	// OverallFlexibility is the refund/exchange flexibility.
	OverallFlexibility Flexibility `json:"overallFlexibility"`
}

// ServiceClass is a service class with its display name (both required).
type ServiceClass struct {
	// Type is BEST, HIGH, STANDARD, BASIC.
	Type ServiceClassType `json:"type"`
	// Name is the partner's name for it.
	Name string `json:"name"`
}

// Product is a sold product; id, code, owner and flexibility are required.
type Product struct {
	// ID is referenced by offer parts' products[].productId.
	ID string `json:"id"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// Code is the partner's product code.
	Code string `json:"code"`
	// Owner is the company code, e.g. "urn:uic:rics:1185".
	Owner string `json:"owner"`
	// Flexibility of the product.
	Flexibility Flexibility `json:"flexibility"`
	// ServiceClass of the product.
	ServiceClass *ServiceClass `json:"serviceClass,omitempty"`
	// TravelClass of the product.
	TravelClass TravelClass `json:"travelClass,omitempty"`
}

// TripCoverage links an offer (part) to a trip (coveredTripId required).
type TripCoverage struct {
	// CoveredTripID is a Trip.ID.
	CoveredTripID string `json:"coveredTripId"`
	// CoveredLegIDs are TripLeg.IDs.
	CoveredLegIDs []string `json:"coveredLegIds,omitempty"`
}

// Offer part object types (the spec's discriminator values).
const (
	ObjectTypeAdmissionOfferPart   = "AdmissionOfferPart"
	ObjectTypeReservationOfferPart = "ReservationOfferPart"
)

// OfferPart holds the fields common to every offer part (the spec's
// AbstractOfferPart). Required: objectType, id, createdOn, validFrom, price,
// offerMode, passengerRefs (>= 1), refundable, exchangeable, products (may
// be empty but must be present: use a non-nil slice when writing) and
// availableFulfillmentOptions (>= 1).
type OfferPart struct {
	// ObjectType is ReservationOfferPart or AdmissionOfferPart.
	ObjectType string `json:"objectType"`
	// ID identifies the part.
	ID string `json:"id"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// CreatedOn is when it was made.
	CreatedOn time.Time `json:"createdOn"`
	// ValidFrom and ValidUntil bound its validity.
	ValidFrom  time.Time  `json:"validFrom"`
	ValidUntil *time.Time `json:"validUntil,omitempty"`
	// Price of the part.
	Price Price `json:"price"`
	// TripCoverage says which trip/legs it covers.
	TripCoverage *TripCoverage `json:"tripCoverage,omitempty"`
	// OfferMode is COLLECTIVE or INDIVIDUAL.
	OfferMode OfferMode `json:"offerMode"`
	// PassengerRefs are passengers' externalRefs.
	PassengerRefs []string `json:"passengerRefs"`
	// NumericAvailability is the number of places left, when told.
	NumericAvailability *int `json:"numericAvailability,omitempty"`
	// Refundable and Exchangeable: YES, NO, WITH_CONDITION.
	Refundable   RefundType       `json:"refundable"`
	Exchangeable ExchangeableType `json:"exchangeable"`
	// Products link the part to Offer.Products and legs.
	Products []ProductLegAssociation `json:"products"`
	// AvailableFulfillmentOptions are the ticket kinds possible (>= 1).
	AvailableFulfillmentOptions []FulfillmentOption `json:"availableFulfillmentOptions"`
}

// ReservationOfferPart is a seat (place) reservation offer.
type ReservationOfferPart struct {
	OfferPart
	// AvailablePlaces say which places are left, per accommodation.
	AvailablePlaces []AvailablePlace `json:"availablePlaces,omitempty"`
}

// AdmissionOfferPart is a ticket offer.
type AdmissionOfferPart struct {
	OfferPart
}

// ProductLegAssociation links a part to a product (productId required).
type ProductLegAssociation struct {
	// ProductID is a Product.ID of the offer.
	ProductID string `json:"productId"`
	// LegIDs are the legs it applies to.
	LegIDs []string `json:"legIds,omitempty"`
}

// FulfillmentOption is a ticket kind (type and media required).
type FulfillmentOption struct {
	// Type is ETICKET, CIT_PAPER...
	Type FulfillmentType `json:"type"`
	// Media is PDF_A4, TICKETLESS...
	Media FulfillmentMediaType `json:"media"`
}

// AvailablePlace tells what places a reservation offer has left;
// accommodationType, accommodationSubType and tripLegCoverage are required.
type AvailablePlace struct {
	// AccommodationType is SEAT, COUCHETTE...
	AccommodationType AccommodationType `json:"accommodationType"`
	// AccommodationSubType refines it.
	AccommodationSubType AccommodationSubType `json:"accommodationSubType"`
	// NumericAvailability is how many are left.
	NumericAvailability *int `json:"numericAvailability,omitempty"`
	// TripLegCoverage is the leg they are on.
	TripLegCoverage TripLegCoverage `json:"tripLegCoverage"`
}

// TripLegCoverage names one leg of one trip (both required).
type TripLegCoverage struct {
	// TripID is a Trip.ID.
	TripID string `json:"tripId"`
	// LegID is a TripLeg.ID.
	LegID string `json:"legId"`
}
