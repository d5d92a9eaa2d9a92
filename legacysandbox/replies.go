package legacysandbox

import (
	"crypto/sha256"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// remembered is the reply given to a messageId, kept to answer a resend.
type remembered struct {
	// fingerprint is of the request, without its sentAt: a resend may be
	// stamped anew, but must otherwise be the same message.
	fingerprint [32]byte
	reply       legacy.Reply
	at          time.Time
}

// replies remembers replies by sender and messageId, oldest first.
type replies struct {
	byKey map[string]*remembered
	order []string // keys, oldest first; order[head:] are live
	head  int
}

func newReplies() *replies { return &replies{byKey: map[string]*remembered{}} }

func (rs *replies) get(key string) (*remembered, bool) {
	r, ok := rs.byKey[key]
	return r, ok
}

// put remembers r under key, dropping the oldest beyond max.
func (rs *replies) put(key string, r *remembered, max int) {
	rs.byKey[key] = r
	rs.order = append(rs.order, key)
	for len(rs.byKey) > max {
		rs.pop()
	}
}

// expire forgets the replies made before cutoff.
func (rs *replies) expire(cutoff time.Time) {
	for rs.head < len(rs.order) {
		if r := rs.byKey[rs.order[rs.head]]; r != nil && !r.at.Before(cutoff) {
			break
		}
		rs.pop()
	}
}

// pop forgets the oldest reply, and compacts the queue now and then.
func (rs *replies) pop() {
	if rs.head >= len(rs.order) {
		return
	}
	delete(rs.byKey, rs.order[rs.head])
	rs.order[rs.head] = ""
	rs.head++
	if rs.head > 1024 && rs.head*2 > len(rs.order) {
		rs.order = append([]string(nil), rs.order[rs.head:]...)
		rs.head = 0
	}
}

// unstamped clears what a resend may change in h, the header of the copy
// c: when the message was sent and whether it was namespaced.
func unstamped(c legacy.Message, h *legacy.Header) legacy.Message {
	h.SentAt, h.Namespaced = time.Time{}, false
	return c
}

// fingerprint hashes req in its JSON form without sentAt or namespace, so
// that the same message resent in XML, in JSON or stamped anew matches.
func fingerprint(req legacy.Request) [32]byte {
	var m legacy.Message
	switch r := req.(type) {
	case *legacy.AvailabilityRequest:
		c := *r
		m = unstamped(&c, &c.Header)
	case *legacy.BookingRequest:
		c := *r
		m = unstamped(&c, &c.Header)
	case *legacy.CancelRequest:
		c := *r
		m = unstamped(&c, &c.Header)
	case *legacy.SynchroRequest:
		c := *r
		m = unstamped(&c, &c.Header)
	case *legacy.PassengerDataRequest:
		c := *r
		m = unstamped(&c, &c.Header)
	default:
		m = req
	}
	b, _ := legacy.Encode(legacy.JSON, m)
	return sha256.Sum256(b)
}
