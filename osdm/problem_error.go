package osdm

import (
	"net/http"
)

// ProblemError is an OSDM error answer on its way out of a provider
// (application/problem+json), or an item of a successful answer's
// problems: the one builder of problems both providers use. Detail is
// written for the client: it names what was wrong and never carries
// internals (hosts, legacy texts, Go errors).
type ProblemError struct {
	// Status is the HTTP status; one of the code's in ProblemCatalogue.
	Status int
	// Code is the problem code (one of the Code constants).
	Code string
	// Type is the problem type URI; "" means the code's osdm.io type.
	Type string
	// Title is the fixed summary; "" means the catalogue's.
	Title string
	// Detail explains this occurrence.
	Detail string
	// Pointers locate the causes (request pointers, per-train details).
	Pointers []ProblemPointer
	// AlternativeSystemProposals are set for ALTERNATIVE_SYSTEM_PROPOSAL.
	AlternativeSystemProposals []AlternativeSystemProposal
	// Allow is the Allow header of a 405.
	Allow string
	// Retryable marks a failure the same request may get past later
	// (Retry-After is not promised); for metrics and logs.
	Retryable bool
}

// Error reads "<code>: <detail>".
func (p *ProblemError) Error() string { return p.Code + ": " + p.Detail }

// NewProblem returns a problem with the given status, code and detail.
func NewProblem(status int, code, detail string) *ProblemError {
	return &ProblemError{Status: status, Code: code, Detail: detail}
}

// Fail returns a problem of code with its usual status (ProblemStatus).
func Fail(code, detail string) *ProblemError {
	return NewProblem(ProblemStatus(code), code, detail)
}

// Invalid is a 400 of code about the request member at pointer ("" for
// the whole body).
func Invalid(code, pointer, detail string) *ProblemError {
	return NewProblem(http.StatusBadRequest, code, detail).WithPointer(pointer)
}

// WithPointer adds a request pointer ("#/tripSearchCriteria/vias") to p
// and returns p.
func (p *ProblemError) WithPointer(pointer string) *ProblemError {
	if pointer != "" {
		p.Pointers = append(p.Pointers, ProblemPointer{RequestPointer: pointer})
	}
	return p
}

// Body is p as an OSDM Problem: the type and title are the code's unless
// p sets its own.
func (p *ProblemError) Body() Problem {
	status := p.Status
	out := Problem{
		Code:                       p.Code,
		Type:                       p.Type,
		Title:                      p.Title,
		Status:                     &status,
		Detail:                     p.Detail,
		Pointers:                   p.Pointers,
		AlternativeSystemProposals: p.AlternativeSystemProposals,
	}
	if out.Type == "" {
		out.Type = ProblemType(p.Code)
	}
	if out.Title == "" {
		out.Title = ProblemTitle(p.Code)
	}
	return out
}

// Inline is p as an item of a successful answer's problems: the status is
// left out, since the item does not fail the answer.
func (p *ProblemError) Inline() Problem {
	out := p.Body()
	out.Status = nil
	return out
}
