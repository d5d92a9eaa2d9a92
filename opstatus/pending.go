package opstatus

import "time"

// Directions of pending work and booking records.
const (
	// LegacyToOSDM is osdm_convert's: a legacy system books at an OSDM
	// partner.
	LegacyToOSDM = "legacy->osdm"
	// OSDMToLegacy is osdm_legacy's: an OSDM consumer books at the
	// legacy system.
	OSDMToLegacy = "osdm->legacy"
)

// Pending is one piece of work settlement still has to do.
type Pending struct {
	// Direction is LegacyToOSDM or OSDMToLegacy.
	Direction string `json:"direction"`
	// Partner is the route's partner name.
	Partner string `json:"partner"`
	// Kind says what waits: "intent" (a message sent or about to be,
	// without a recorded outcome), "hold" (places held, not yet
	// confirmed), "exchange" (an exchange not yet confirmed or undone),
	// "unsettled" (a reply given whose partner state is not known).
	Kind string `json:"kind"`
	// Ref is what the work is about: a legacy messageId or an OSDM
	// booking id.
	Ref string `json:"ref"`
	// Since is when the work began; Age is how long ago, in seconds.
	Since time.Time `json:"since"`
	Age   float64   `json:"age_seconds"`
	// NextAttempt is when settlement looks at it next, where known
	// (a lease or a hold that must run out first).
	NextAttempt time.Time `json:"next_attempt,omitzero"`
	// Attempts counts the settlement passes that found nothing out.
	Attempts int `json:"attempts,omitempty"`
	// Detail says more, in words.
	Detail string `json:"detail,omitempty"`
}

// WithAge sets p.Age from p.Since as seen at now.
func (p Pending) WithAge(now time.Time) Pending {
	p.Age = now.Sub(p.Since).Round(time.Millisecond).Seconds()
	return p
}
