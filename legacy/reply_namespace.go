package legacy

// WithNamespace returns r with its header's Namespaced (and that of a
// SynchroReply's nested reply) set to ns, as the reply to a request in
// that XML form carries it: r itself when it already is, else a shallow
// copy, so that a reply kept for resends is never changed.
func WithNamespace(r Reply, ns bool) Reply {
	switch m := r.(type) {
	case *AvailabilityReply:
		if m != nil && m.Header.Namespaced != ns {
			c := *m
			c.Header.Namespaced = ns
			return &c
		}
	case *BookingReply:
		if m != nil && m.Header.Namespaced != ns {
			c := *m
			c.Header.Namespaced = ns
			return &c
		}
	case *CancelReply:
		if m != nil && m.Header.Namespaced != ns {
			c := *m
			c.Header.Namespaced = ns
			return &c
		}
	case *SynchroReply:
		if m == nil {
			break
		}
		inner := m.Reply
		if inner != nil {
			inner = WithNamespace(inner, ns)
		}
		if m.Header.Namespaced != ns || inner != m.Reply {
			c := *m
			c.Header.Namespaced, c.Reply = ns, inner
			return &c
		}
	case *PassengerDataReply:
		if m != nil && m.Header.Namespaced != ns {
			c := *m
			c.Header.Namespaced = ns
			return &c
		}
	case *TicketReply:
		if m != nil && m.Header.Namespaced != ns {
			c := *m
			c.Header.Namespaced = ns
			return &c
		}
	case *ReplacementProposal:
		if m != nil && m.Header.Namespaced != ns {
			c := *m
			c.Header.Namespaced = ns
			return &c
		}
	case *NegativeReply:
		if m != nil && m.Header.Namespaced != ns {
			c := *m
			c.Header.Namespaced = ns
			return &c
		}
	}
	return r
}
