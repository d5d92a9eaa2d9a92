package osdm

// The OSDM enumerations we use. Most are x-extensible-enum in the spec (open:
// a partner may send values not listed), some are closed enums (noted). Each
// is a string type so an unknown value survives a round trip unchanged; the
// constants name the values the converter and sandbox act on.

// PassengerType is the OSDM passenger type (extensible).
type PassengerType string

// Passenger types from the spec.
const (
	PassengerYoungChild  PassengerType = "YOUNG_CHILD"
	PassengerChild       PassengerType = "CHILD"
	PassengerYouth       PassengerType = "YOUTH"
	PassengerAdult       PassengerType = "ADULT"
	PassengerSenior      PassengerType = "SENIOR"
	PassengerFamilyChild PassengerType = "FAMILY_CHILD"
	PassengerPRM         PassengerType = "PRM"
	PassengerWheelchair  PassengerType = "WHEELCHAIR"
	PassengerPerson      PassengerType = "PERSON"
	PassengerDog         PassengerType = "DOG"
	PassengerBicycle     PassengerType = "BICYCLE"
)

// PassengerTypes are the values the spec lists for PassengerType (3.9,
// components.schemas.PassengerType x-extensible-enum, in its order). The
// converter accepts only these in its tariff table, so that a typo such as
// ADLT is a configuration error rather than a passenger every partner
// refuses.
var PassengerTypes = []PassengerType{
	"YOUNG_CHILD", "CHILD", "YOUTH", "ADULT", "SENIOR", "FAMILY_CHILD", "ACCOMP_PRM", "PRM_CHILD", "WHEELCHAIR", "PERSON",
	"PRM", "DOG", "PET", "LUGGAGE", "BICYCLE", "PRAM", "ACCOMP_DOG", "CAR", "MOTOCYCLE", "TRAILER",
}

// OfferPartType selects offer parts in a search (closed enum in the spec:
// an unknown value is refused by partners).
type OfferPartType string

// Offer part types from the spec.
const (
	OfferPartAdmission   OfferPartType = "ADMISSION"
	OfferPartReservation OfferPartType = "RESERVATION"
	OfferPartAncillary   OfferPartType = "ANCILLARY"
	OfferPartAll         OfferPartType = "ALL"
)

// TravelClass is first or second class (extensible).
type TravelClass string

// Travel classes from the spec.
const (
	TravelClassFirst  TravelClass = "FIRST"
	TravelClassSecond TravelClass = "SECOND"
	TravelClassAny    TravelClass = "ANY_CLASS"
)

// ServiceClassType is the comfort level (extensible).
type ServiceClassType string

// Service class types from the spec.
const (
	ServiceClassBest     ServiceClassType = "BEST"
	ServiceClassHigh     ServiceClassType = "HIGH"
	ServiceClassStandard ServiceClassType = "STANDARD"
	ServiceClassBasic    ServiceClassType = "BASIC"
	ServiceClassAny      ServiceClassType = "ANY_CLASS"
)

// AccommodationType is the kind of place (extensible).
type AccommodationType string

// Accommodation types from the spec.
const (
	AccommodationSeat      AccommodationType = "SEAT"
	AccommodationCouchette AccommodationType = "COUCHETTE"
	AccommodationBerth     AccommodationType = "BERTH"
	AccommodationVehicle   AccommodationType = "VEHICLE"
	AccommodationStorage   AccommodationType = "STORAGE"
)

// AccommodationSubType refines AccommodationType (extensible; about 70
// values in the spec, only the common ones are named here).
type AccommodationSubType string

// Common accommodation sub types from the spec.
const (
	AccommodationSubAnySeat     AccommodationSubType = "ANY_SEAT"
	AccommodationSubCompartment AccommodationSubType = "COMPARTMENT"
	AccommodationSubOpenSpace   AccommodationSubType = "OPEN_SPACE"
	AccommodationSubSilence     AccommodationSubType = "SILENCE"
	AccommodationSubWheelchair  AccommodationSubType = "WHEELCHAIR"
)

// OfferMode says whether an offer part covers passengers together or one
// each (closed enum).
type OfferMode string

// Offer modes from the spec.
const (
	OfferModeCollective OfferMode = "COLLECTIVE"
	OfferModeIndividual OfferMode = "INDIVIDUAL"
)

// RefundType says whether a part is refundable (closed enum; the type is
// also used for ExchangeableType, which has the same values).
type RefundType string

// Refund/exchange possibilities from the spec.
const (
	RefundYes           RefundType = "YES"
	RefundNo            RefundType = "NO"
	RefundWithCondition RefundType = "WITH_CONDITION"
)

// ExchangeableType says whether a part is exchangeable (closed enum).
type ExchangeableType = RefundType

// Flexibility of a product (extensible).
type Flexibility string

// Flexibilities from the spec.
const (
	FlexibilityFull Flexibility = "FULL_FLEXIBLE"
	FlexibilitySemi Flexibility = "SEMI_FLEXIBLE"
	FlexibilityNone Flexibility = "NON_FLEXIBLE"
)

// FulfillmentType is the kind of ticket (extensible).
type FulfillmentType string

// Fulfillment types from the spec.
const (
	FulfillmentETicket  FulfillmentType = "ETICKET"
	FulfillmentCITPaper FulfillmentType = "CIT_PAPER"
)

// FulfillmentMediaType is the medium of a ticket (extensible).
type FulfillmentMediaType string

// Fulfillment media from the spec.
const (
	FulfillmentMediaPDFA4      FulfillmentMediaType = "PDF_A4"
	FulfillmentMediaTicketless FulfillmentMediaType = "TICKETLESS"
	FulfillmentMediaRCT2       FulfillmentMediaType = "RCT2"
	FulfillmentMediaUICPDF     FulfillmentMediaType = "UIC_PDF"
)

// BookingPartStatus is the state of a booked reservation or admission
// (closed enum).
type BookingPartStatus string

// Booking part states from the spec.
const (
	BookingPartPrebooked       BookingPartStatus = "PREBOOKED"
	BookingPartOnHold          BookingPartStatus = "ON_HOLD"
	BookingPartConfirmed       BookingPartStatus = "CONFIRMED"
	BookingPartFulfilled       BookingPartStatus = "FULFILLED"
	BookingPartCancelled       BookingPartStatus = "CANCELLED"
	BookingPartReleased        BookingPartStatus = "RELEASED"
	BookingPartRefunded        BookingPartStatus = "REFUNDED"
	BookingPartExchangeOngoing BookingPartStatus = "EXCHANGE_ONGOING"
	BookingPartExchanged       BookingPartStatus = "EXCHANGED"
	BookingPartError           BookingPartStatus = "ERROR"
)

// FulfillmentStatus is the state of a fulfilment (closed enum).
type FulfillmentStatus string

// Fulfillment states from the spec.
const (
	FulfillmentAvailable FulfillmentStatus = "AVAILABLE"
	FulfillmentOnHold    FulfillmentStatus = "ON_HOLD"
	FulfillmentConfirmed FulfillmentStatus = "CONFIRMED"
	FulfillmentFulfilled FulfillmentStatus = "FULFILLED"
	FulfillmentCheckedIn FulfillmentStatus = "CHECKEDIN"
	FulfillmentCancelled FulfillmentStatus = "CANCELLED"
	FulfillmentReleased  FulfillmentStatus = "RELEASED"
	FulfillmentRefunded  FulfillmentStatus = "REFUNDED"
	FulfillmentExchanged FulfillmentStatus = "EXCHANGED"
	FulfillmentExpired   FulfillmentStatus = "EXPIRED"
)

// RefundStatus is the state of a refund offer (closed enum).
type RefundStatus string

// Refund offer states from the spec.
const (
	RefundProposed  RefundStatus = "PROPOSED"
	RefundConfirmed RefundStatus = "CONFIRMED"
)

// OverruleCode asks a partner to refund outside the normal conditions
// (extensible); osdm_convert maps legacy cancel reasons to it.
type OverruleCode string

// Overrule codes from the spec.
const (
	OverruleConnectionBroken      OverruleCode = "CONNECTION_BROKEN"
	OverruleDeath                 OverruleCode = "DEATH"
	OverruleEquipmentFailure      OverruleCode = "EQUIPMENT_FAILURE"
	OverrulePaymentFailure        OverruleCode = "PAYMENT_FAILURE"
	OverrulePRMSupportUnavailable OverruleCode = "PRM_SUPPORT_UNAVAILABLE"
	OverruleSalesStaffError       OverruleCode = "SALES_STAFF_ERROR"
	OverruleStopNotServed         OverruleCode = "STOP_NOT_SERVED"
	OverruleStrike                OverruleCode = "STRIKE"
	OverruleTechnicalFailure      OverruleCode = "TECHNICAL_FAILURE"
	OverruleTicketNotUsed         OverruleCode = "TICKET_NOT_USED"
	OverruleInabilityToTravel     OverruleCode = "INABILITY_TO_TRAVEL"
	OverruleExternalCompensation  OverruleCode = "EXTERNAL_COMPENSATION"
	OverruleDisruption            OverruleCode = "DISRUPTION"
	OverruleJourneyObsolete       OverruleCode = "JOURNEY_OBSOLETE"
	OverruleCertifiedMedical      OverruleCode = "CERTIFIED_MEDICAL_CONDITION"
	OverruleDelayCompensation     OverruleCode = "DELAY_COMPENSATION"
)

// OverruleCodes are the overrule codes the spec lists, in its order.
var OverruleCodes = []OverruleCode{
	OverruleConnectionBroken, OverruleDeath, OverruleEquipmentFailure, OverrulePaymentFailure,
	OverrulePRMSupportUnavailable, OverruleSalesStaffError, OverruleStopNotServed, OverruleStrike,
	OverruleTechnicalFailure, OverruleTicketNotUsed, OverruleInabilityToTravel, OverruleExternalCompensation,
	OverruleDisruption, OverruleJourneyObsolete, OverruleCertifiedMedical, OverruleDelayCompensation,
}
