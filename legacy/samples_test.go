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

// samples are all message kinds, named by kind.
func samples() []Message {
	return []Message{
		sampleAvailabilityRequest(), sampleBookingRequest(), sampleCancelRequest(),
		sampleAvailabilityReply(), sampleBookingReply(), sampleCancelReply(),
		sampleReplacementProposal(), sampleNegativeReply(),
	}
}

// decodeAny decodes a request or reply of any kind.
func decodeAny(f Format, body []byte) (Message, error) {
	if m, err := decode(f, body, true); err == nil {
		return m, nil
	}
	return decode(f, body, false)
}
