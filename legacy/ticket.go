package legacy

// The ticket messages (version 3): a TicketRequest asks for the ticket
// documents of a booking the partner has fulfilled, a TicketReply carries
// them.

// TicketRequest asks for the ticket documents of a fulfilled booking.
type TicketRequest struct {
	Header Header
	// BookingRef is the BookingRef of a BookingReply.
	BookingRef string
}

// TicketReply answers a TicketRequest: the booking's tickets, one per
// fulfilment, with their documents.
type TicketReply struct {
	Header     ReplyHeader
	BookingRef string
	// Tickets are the booking's fulfilments, in the partner's order.
	Tickets []Ticket
}

// Ticket is one fulfilment of a booking.
type Ticket struct {
	// FulfilmentRef is the partner's fulfilment id.
	FulfilmentRef string
	// Status is the fulfilment's OSDM status, e.g. FULFILLED or REFUNDED.
	Status string
	// TicketControlNumber is the fulfilment's control number; "" when
	// the partner gave none.
	TicketControlNumber string
	// Documents are the fulfilment's documents; none for a fulfilment
	// that no longer offers them (refunded, exchanged) or that the
	// partner issues without a document.
	Documents []Document
}

// Document is one ticket document, whole.
type Document struct {
	// Format is the MIME type, e.g. application/pdf.
	Format string
	// Medium is the OSDM fulfilment medium, e.g. PDF_A4.
	Medium string
	// Type is the OSDM document type, e.g. TICKET.
	Type string
	// ControlNumber is the document's own control number; "" when none.
	ControlNumber string
	// Content is the document's bytes (base64 on the wire).
	Content []byte
}

// Kind implements Message.
func (*TicketRequest) Kind() Kind { return KindTicketRequest }

// MessageID implements Request.
func (r *TicketRequest) MessageID() string { return r.Header.MessageID }

// RequestHeader implements Request.
func (r *TicketRequest) RequestHeader() Header { return r.Header }

// Kind implements Message.
func (*TicketReply) Kind() Kind { return KindTicketReply }

// ReplyHeader implements Reply.
func (r *TicketReply) ReplyHeader() ReplyHeader { return r.Header }

// header implements headedReply.
func (r *TicketReply) header() *ReplyHeader { return &r.Header }

// Interface guards.
var (
	_ Request = (*TicketRequest)(nil)
	_ Reply   = (*TicketReply)(nil)
)
