package osdm

import "time"

// FulfillmentDocumentType is the kind of a fulfilment document
// (extensible).
type FulfillmentDocumentType string

// Fulfilment document types from the spec.
const (
	DocumentTicket         FulfillmentDocumentType = "TICKET"
	DocumentBoardingPass   FulfillmentDocumentType = "BOARDING_PASS"
	DocumentBookingReceipt FulfillmentDocumentType = "BOOKING_RECEIPT"
	DocumentInformation    FulfillmentDocumentType = "INFORMATION"
	DocumentVoucher        FulfillmentDocumentType = "VOUCHER"
)

// DocumentFormat is the MIME type of a document's content (closed enum;
// these are the ones this project reads or writes).
type DocumentFormat string

// Document formats from the spec.
const (
	FormatPDF  DocumentFormat = "application/pdf"
	FormatPNG  DocumentFormat = "image/png"
	FormatJPEG DocumentFormat = "image/jpeg"
)

// MaxDocumentContent is the spec's bound on a document's base64 content
// (4 MBytes of encoded text, so at most 3 MBytes of document).
const MaxDocumentContent = 4 << 20

// FulfillmentDocument is a document of a fulfilment, such as the ticket
// as a PDF: medium, type and format are required, and either Content or
// DownloadLink (with DownloadExpiry) gives the bytes.
type FulfillmentDocument struct {
	// ID names the document; a fulfilment lists the ids of its documents
	// in FulfillmentDocumentRefs.
	ID string `json:"id,omitempty"`
	// Medium is the medium, e.g. PDF_A4.
	Medium FulfillmentMediaType `json:"medium"`
	// Type is the kind of document, e.g. TICKET.
	Type FulfillmentDocumentType `json:"type"`
	// Format is the MIME type of Content, e.g. application/pdf.
	Format DocumentFormat `json:"format"`
	// DownloadLink is where the bytes are, when Content does not carry them.
	DownloadLink string `json:"downloadLink,omitempty"`
	// DownloadExpiry is when DownloadLink stops working.
	DownloadExpiry *time.Time `json:"downloadExpiry,omitempty"`
	// Content is the document's bytes (base64 in JSON: at most
	// MaxDocumentContent characters).
	Content []byte `json:"content,omitempty"`
	// ControlNumber is the document's own ticket control number.
	ControlNumber string `json:"controlNumber,omitempty"`
}
