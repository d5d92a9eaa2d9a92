package legacy

// Bounds on what Decode and DecodeReply read. A legacy message is a few
// hundred bytes; these stop a hostile body from costing memory or time.
const (
	// MaxBodyBytes is the longest request body decoded (the caller's
	// max_body may be lower).
	MaxBodyBytes = 1 << 20
	// MaxReplyBytes is the longest reply body DecodeReply reads: a
	// TicketReply carries its documents whole, in base64.
	MaxReplyBytes = 64 << 20
	// MaxDepth is the deepest nesting of XML elements or JSON values; the
	// deepest legitimate message (a SynchroReply wrapping exchange offers)
	// nests 6.
	MaxDepth = 8
	// MaxElements is the most XML elements or JSON values in one message.
	MaxElements = 1024
	// MaxItems is the most items of one repeated element (offers, places,
	// alternatives); tariffs and passengers are bounded lower by the rules.
	MaxItems = 100
)
