package osdm

import (
	"strconv"
	"strings"
)

// Problem types the converter acts on.
const (
	// ProblemTypeAlternativeSystemProposal is the problem type URI of
	// CodeAlternativeSystemProposal (a train the partner cannot sell but
	// another reservation system can, v3.10: inside a successful response's
	// problems, or as a 4xx problem+json).
	ProblemTypeAlternativeSystemProposal = "https://osdm.io/errors/alternative_system_proposal"
	// ProblemTypeBlank is RFC 9457's default problem type.
	ProblemTypeBlank = "about:blank"
)

// Problem is an RFC 9457 problem detail as OSDM uses it: the body of every
// error response (application/problem+json) and the items of a successful
// response's problems. All fields are optional; Type and Instance must be
// absolute URIs when set.
//
// AlternativeSystemProposals exists only in v3.10: a Problem carrying it
// validates against v3.10, not against 3.9 (where Problem is closed).
type Problem struct {
	// Code is the OSDM problem code, e.g. "urn:uic:problem:BOOKING_NOT_FOUND".
	Code string `json:"code,omitempty"`
	// Type is an absolute URI naming the problem type.
	Type string `json:"type,omitempty"`
	// Title is a short summary for engineers.
	Title string `json:"title,omitempty"`
	// Status is the HTTP status (100..599).
	Status *int `json:"status,omitempty"`
	// Detail explains this occurrence.
	Detail string `json:"detail,omitempty"`
	// Instance is an absolute URI for this occurrence.
	Instance string `json:"instance,omitempty"`
	// Pointers locate the cause in the request or response.
	Pointers []ProblemPointer `json:"pointers,omitempty"`
	// AlternativeSystemProposals name the systems that can sell instead (v3.10).
	AlternativeSystemProposals []AlternativeSystemProposal `json:"alternativeSystemProposals,omitempty"`
}

// Error makes a Problem usable as an error: code, status, title and detail,
// whichever are present.
func (p *Problem) Error() string {
	parts := []string{"OSDM problem"}
	if p.Code != "" {
		parts = append(parts, p.Code)
	}
	if p.Status != nil {
		parts = append(parts, "status "+strconv.Itoa(*p.Status))
	}
	if p.Title != "" {
		parts = append(parts, p.Title)
	}
	if p.Detail != "" {
		parts = append(parts, p.Detail)
	}
	return strings.Join(parts, ": ")
}

// IsAlternativeSystemProposal reports whether the problem redirects to
// other reservation systems (by code, or by type for partners that send
// only the type).
func (p *Problem) IsAlternativeSystemProposal() bool {
	return p.Code == CodeAlternativeSystemProposal || p.Type == ProblemTypeAlternativeSystemProposal
}

// ProblemPointer locates a problem's cause; all fields optional.
type ProblemPointer struct {
	// Code, Type, Title, Status, Detail, Instance as in Problem.
	Code     string `json:"code,omitempty"`
	Type     string `json:"type,omitempty"`
	Title    string `json:"title,omitempty"`
	Status   *int   `json:"status,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	// RequestPointer points into the request, e.g. "#/offers[0]".
	RequestPointer string `json:"requestPointer,omitempty"`
	// ResponsePointer points into the response, e.g. "#/trips[1]/legs[1]/id".
	ResponsePointer string `json:"responsePointer,omitempty"`
	// Originator names who raised it.
	Originator string `json:"originator,omitempty"`
}

// AlternativeSystemProposal (v3.10) names another reservation system for
// the trip or legs a problem points at; systemOperatorCode is required.
type AlternativeSystemProposal struct {
	// ReservationSystemID is the 90918-1 code of the other system, e.g. 80.
	ReservationSystemID *int `json:"reservationSystemId,omitempty"`
	// SystemOperatorCode is the operator's company code, e.g. "urn:uic:rics:1185".
	SystemOperatorCode string `json:"systemOperatorCode"`
	// Scope limits the proposal to trains / classes.
	Scope []AlternativeSystemProposalScope `json:"scope,omitempty"`
	// Priority orders proposals: lowest first.
	Priority *int `json:"priority,omitempty"`
}

// AlternativeSystemProposalScope limits a proposal (vehicleNumber required).
type AlternativeSystemProposalScope struct {
	// VehicleNumber is the train number, e.g. "462".
	VehicleNumber string `json:"vehicleNumber"`
	// TravelClass limits it to a class.
	TravelClass TravelClass `json:"travelClass,omitempty"`
	// AccommodationType limits it to an accommodation.
	AccommodationType AccommodationType `json:"accommodationType,omitempty"`
	// AccommodationSubType refines it.
	AccommodationSubType AccommodationSubType `json:"accommodationSubType,omitempty"`
}
