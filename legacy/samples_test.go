package legacy

import "time"

// Sample messages of every kind, filled in every field, used by the golden,
// round-trip, fuzz-seed and benchmark tests.

var sampleTime = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func intPtr(n int) *int { return &n }

func sampleAvailabilityRequest() *AvailabilityRequest {
	return &AvailabilityRequest{
		Header: Header{MessageID: "A-20261201-0001", SentAt: sampleTime, Sender: 87},
		Journey: Journey{
			TrainNumber: "9203", DepartureDate: "2026-12-01", DepartureTime: "07:56",
			From: "8727100", To: "8500010",
		},
		Places: PlaceRequest{
			TravelClass: SecondClass, ServiceCode: ServiceSeat,
			Tariffs: []Tariff{{Code: 1, Count: 2}, {Code: 2, Count: 1}},
		},
	}
}

func sampleBookingRequest() *BookingRequest {
	return &BookingRequest{
		Header:          Header{MessageID: "B-20261201-0002", SentAt: sampleTime, Sender: 87},
		InformationOnly: false,
		Journey: Journey{
			TrainNumber: "9203", DepartureDate: "2026-12-01", DepartureTime: "07:56",
			From: "8727100", To: "8500010", Carrier: "1187",
		},
		Places: PlaceRequest{
			TravelClass: FirstClass, ServiceCode: ServiceSeat, ServiceLevel: "AV",
			Tariffs: []Tariff{{Code: 1, Count: 2}},
		},
		OfferRef: "offer-7f3a9c:rp-1",
		Passengers: []Passenger{
			{FirstName: "Anna", LastName: "Müller", DateOfBirth: "1990-05-17"},
			{LastName: "O'Brien & Söhne"},
		},
	}
}

func sampleCancelRequest() *CancelRequest {
	return &CancelRequest{
		Header:     Header{MessageID: "C-20261201-0003", SentAt: sampleTime, Sender: 87},
		BookingRef: "b-4711",
		ReasonCode: intPtr(3),
	}
}

func sampleAvailabilityReply() *AvailabilityReply {
	return &AvailabilityReply{
		Header: ReplyHeader{CorrelationID: "A-20261201-0001", SentAt: sampleTime},
		Journey: ReplyJourney{
			TrainNumber: "9203", DepartureDate: "2026-12-01", DepartureTime: "07:56",
			ArrivalTime: "11:58", From: "8727100", To: "8500010",
		},
		Offers: []Offer{
			{
				OfferRef: "offer-7f3a9c:rp-1", TravelClass: SecondClass, ServiceCode: ServiceSeat,
				ServiceLevel: "AV", Price: &Price{Amount: "49.90", Currency: "EUR"}, AvailablePlaces: intPtr(42),
				ValidUntil: sampleTime.Add(30 * time.Minute),
			},
			{
				OfferRef: "offer-7f3a9c:rp-2", TravelClass: FirstClass, ServiceCode: ServiceSeat,
				Price: &Price{Amount: "89.00", Currency: "EUR"},
			},
		},
	}
}

func sampleBookingReply() *BookingReply {
	return &BookingReply{
		Header:               ReplyHeader{CorrelationID: "B-20261201-0002", SentAt: sampleTime},
		BookingRef:           "b-4711",
		ReservationReference: "QX7K2P",
		Status:               StatusFulfilled,
		Price:                &Price{Amount: "99.80", Currency: "EUR"},
		Places:               []Place{{Coach: "11", Number: "45"}, {Coach: "11", Number: "46"}},
		TicketControlNumber:  "TCN-0815",
	}
}

func sampleCancelReply() *CancelReply {
	return &CancelReply{
		Header:       ReplyHeader{CorrelationID: "C-20261201-0003", SentAt: sampleTime},
		BookingRef:   "b-4711",
		Status:       StatusRefunded,
		RefundAmount: &Price{Amount: "89.80", Currency: "EUR"},
		Fee:          &Price{Amount: "10.00", Currency: "EUR"},
	}
}

func sampleReplacementProposal() *ReplacementProposal {
	return &ReplacementProposal{
		Header: ReplyHeader{CorrelationID: "A-20261201-0001", SentAt: sampleTime},
		Alternatives: []Alternative{
			{ReservationSystem: 81, Operator: "1181", TrainNumber: "462", TravelClass: FirstClass, Priority: 1},
			{ReservationSystem: 55, Operator: "1155", TrainNumber: "462", Priority: 2},
		},
	}
}

func sampleNegativeReply() *NegativeReply {
	return &NegativeReply{
		Header:         ReplyHeader{CorrelationID: "B-20261201-0002", SentAt: sampleTime},
		Code:           CodeBookingRolledBack,
		Text:           "The partner could not fulfil booking b-4711; it was deleted again. Send the request again later.",
		Retryable:      true,
		BookingRef:     "b-4711",
		PartnerProblem: "urn:uic:problem:FULFILLMENT_FAILED",
	}
}

func sampleExchangeAvailabilityRequest() *AvailabilityRequest {
	m := sampleAvailabilityRequest()
	m.Header.MessageID = "A-20261201-0004"
	m.ExchangeOf = "b-4711"
	return m
}

func sampleExchangeBookingRequest() *BookingRequest {
	m := sampleBookingRequest()
	m.Header.MessageID = "B-20261201-0005"
	m.OfferRef = "xo-7f3a9c:1"
	m.ExchangeOf = "b-4711"
	return m
}

func samplePartialCancelRequest() *CancelRequest {
	return &CancelRequest{
		Header:     Header{MessageID: "C-20261201-0006", SentAt: sampleTime, Sender: 87},
		BookingRef: "b-4711",
		Places:     []Place{{Coach: "11", Number: "46"}, {Number: "7"}},
	}
}

func sampleSynchroRequest() *SynchroRequest {
	return &SynchroRequest{
		Header:            Header{MessageID: "S-20261201-0007", SentAt: sampleTime, Sender: 87},
		OriginalMessageID: "B-20261201-0002",
		Rollback:          true,
	}
}

func samplePassengerDataRequest() *PassengerDataRequest {
	return &PassengerDataRequest{
		Header:     Header{MessageID: "P-20261201-0008", SentAt: sampleTime, Sender: 87},
		BookingRef: "b-4711",
		Passengers: []PassengerData{
			{Index: 2, FirstName: "Seán", LastName: "O'Brien & Söhne", DateOfBirth: "1988-02-29"},
			{Index: 1, DateOfBirth: "1990-05-17"},
		},
	}
}

func sampleExchangeAvailabilityReply() *AvailabilityReply {
	m := sampleAvailabilityReply()
	m.Header.CorrelationID = "A-20261201-0004"
	m.Offers[0].Exchange = &Exchange{Fee: &Price{Amount: "10.00", Currency: "EUR"}, AmountToPay: &Price{Amount: "0.00", Currency: "EUR"}}
	m.Offers[1].Exchange = &Exchange{Fee: &Price{Amount: "0", Currency: "EUR"}, RefundAmount: &Price{Amount: "12.50", Currency: "EUR"}}
	return m
}

func sampleExchangeBookingReply() *BookingReply {
	m := sampleBookingReply()
	m.Header.CorrelationID = "B-20261201-0005"
	m.Exchange = &Exchange{Fee: &Price{Amount: "10.00", Currency: "EUR"}, AmountToPay: &Price{Amount: "28.40", Currency: "EUR"}}
	m.ExchangeOf = "b-4711"
	return m
}

func samplePartialCancelReply() *CancelReply {
	return &CancelReply{
		Header:       ReplyHeader{CorrelationID: "C-20261201-0006", SentAt: sampleTime},
		BookingRef:   "b-4711",
		Status:       StatusPartiallyRefunded,
		RefundAmount: &Price{Amount: "39.90", Currency: "EUR"},
		Fee:          &Price{Amount: "5.00", Currency: "EUR"},
		Places:       []Place{{Coach: "11", Number: "46"}},
	}
}

func sampleSynchroReply() *SynchroReply {
	return &SynchroReply{
		Header:            ReplyHeader{CorrelationID: "S-20261201-0007", SentAt: sampleTime},
		OriginalMessageID: "B-20261201-0002",
		State:             StateDone,
		Reply:             sampleBookingReply(),
	}
}

func sampleRolledBackSynchroReply() *SynchroReply {
	return &SynchroReply{
		Header:            ReplyHeader{CorrelationID: "S-20261201-0007", SentAt: sampleTime},
		OriginalMessageID: "B-20261201-0002",
		State:             StateRolledBack,
		RefundAmount:      &Price{Amount: "99.80", Currency: "EUR"},
		Fee:               &Price{Amount: "0.00", Currency: "EUR"},
	}
}

func samplePassengerDataReply() *PassengerDataReply {
	return &PassengerDataReply{
		Header:     ReplyHeader{CorrelationID: "P-20261201-0008", SentAt: sampleTime},
		BookingRef: "b-4711",
		Passengers: []PassengerData{
			{Index: 1, FirstName: "Anna", LastName: "Müller", DateOfBirth: "1990-05-17"},
			{Index: 2, FirstName: "Seán", LastName: "O'Brien & Söhne", DateOfBirth: "1988-02-29"},
			{Index: 3},
		},
	}
}

func sampleTicketRequest() *TicketRequest {
	return &TicketRequest{
		Header:     Header{MessageID: "T-20261201-0009", SentAt: sampleTime, Sender: 87},
		BookingRef: "b-4711",
	}
}

// sampleTicketReply has a ticket with two documents, one with its own
// control number and bytes that base64 writes with + and /, and a
// refunded ticket without documents.
func sampleTicketReply() *TicketReply {
	return &TicketReply{
		Header:     ReplyHeader{CorrelationID: "T-20261201-0009", SentAt: sampleTime},
		BookingRef: "b-4711",
		Tickets: []Ticket{
			{FulfilmentRef: "ful-4711", Status: "FULFILLED", TicketControlNumber: "CN8Q2Z4K7M", Documents: []Document{
				{Format: "application/pdf", Medium: "PDF_A4", Type: "TICKET", ControlNumber: "CN8Q2Z4K7M",
					Content: []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n%%EOF\n")},
				{Format: "image/png", Medium: "PDF_A4", Type: "BOOKING_RECEIPT", Content: []byte{0x89, 'P', 'N', 'G', 0xfb, 0xff, 0xfe}},
			}},
			{FulfilmentRef: "ful-4712", Status: "REFUNDED"},
		},
	}
}

// sample is a message with the name of its golden files.
type sample struct {
	name string
	m    Message
}

// samples are all message kinds, named by kind, and the after-sales forms
// of the version-1 kinds, named by kind and form.
func samples() []sample {
	var out []sample
	for _, m := range []Message{
		sampleAvailabilityRequest(), sampleBookingRequest(), sampleCancelRequest(),
		sampleSynchroRequest(), samplePassengerDataRequest(),
		sampleAvailabilityReply(), sampleBookingReply(), sampleCancelReply(),
		sampleSynchroReply(), samplePassengerDataReply(),
		sampleReplacementProposal(), sampleNegativeReply(),
		sampleTicketRequest(), sampleTicketReply(),
	} {
		out = append(out, sample{string(m.Kind()), m})
	}
	return append(out,
		sample{"AvailabilityRequest.exchange", sampleExchangeAvailabilityRequest()},
		sample{"BookingRequest.exchange", sampleExchangeBookingRequest()},
		sample{"CancelRequest.partial", samplePartialCancelRequest()},
		sample{"AvailabilityReply.exchange", sampleExchangeAvailabilityReply()},
		sample{"BookingReply.exchange", sampleExchangeBookingReply()},
		sample{"CancelReply.partial", samplePartialCancelReply()},
		sample{"SynchroReply.rolledback", sampleRolledBackSynchroReply()},
	)
}

// decodeAny decodes a request or reply of any kind.
func decodeAny(f Format, body []byte) (Message, error) {
	if m, err := decode(f, body, true); err == nil {
		return m, nil
	}
	return decode(f, body, false)
}
