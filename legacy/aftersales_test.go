package legacy

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// afterSalesRuleCases are the rules of the after-sales messages, run by
// TestRules.
func afterSalesRuleCases() []ruleCase {
	a, pc := sampleExchangeAvailabilityRequest(), samplePartialCancelRequest()
	s, pd := sampleSynchroRequest(), samplePassengerDataRequest()
	tenPlaces := strings.Repeat(`<Place number="9"/>`, 10)
	tenJSON := strings.TrimSuffix(strings.Repeat(`{"number":"9"},`, 10), ",")
	return []ruleCase{
		{name: "AvailabilityRequest ExchangeOf with a space", base: a, rule: ruleRef,
			xml: []string{`<ExchangeOf>b-4711`, `<ExchangeOf>b 4711`}, xmlField: "ExchangeOf",
			json: []string{`"exchangeOf":"b-4711"`, `"exchangeOf":"b 4711"`}, jsonField: "exchangeOf"},
		{name: "Place twice", base: pc, rule: `names the same place as item 1 (coach "11", number "46")`,
			xml: []string{`<Place number="7"/>`, `<Place coach="11" number="46"/>`}, xmlField: "Place[2]",
			json: []string{`{"number":"7"}`, `{"number":"46","coach":"11"}`}, jsonField: "places[1]"},
		{name: "Place without number", base: pc, rule: ruleRequired,
			xml: []string{`<Place number="7"/>`, `<Place coach="7"/>`}, xmlField: "Place[2]/@number",
			json: []string{`{"number":"7"}`, `{"coach":"7"}`}, jsonField: "places[1].number"},
		{name: "Place with an unknown attribute", base: pc, rule: "is not a known attribute here",
			xml: []string{`<Place number="7"/>`, `<Place number="7" seat="7"/>`}, xmlField: "Place[2]/@seat"},
		{name: "ten places", base: pc, rule: "must appear at most 9 times",
			xml: []string{`<Place number="7"/>`, tenPlaces}, xmlField: "Place"},
		{name: "ten places", base: pc, rule: "must have at most 9 items",
			json: []string{`{"number":"7"}`, tenJSON}, jsonField: "places"},
		{name: "OriginalMessageId missing", base: s, rule: ruleRequired,
			xml: []string{`<OriginalMessageId>B-20261201-0002</OriginalMessageId>`, ``}, xmlField: "OriginalMessageId",
			json: []string{`,"originalMessageId":"B-20261201-0002"`, ``}, jsonField: "originalMessageId"},
		{name: "OriginalMessageId bad character", base: s, rule: ruleMessageID,
			xml: []string{`B-20261201-0002`, `B/2`}, xmlField: "OriginalMessageId",
			json: []string{`B-20261201-0002`, `B/2`}, jsonField: "originalMessageId"},
		{name: "rollback not a boolean", base: s, rule: ruleBool,
			xml: []string{`rollback="true"`, `rollback="yes"`}, xmlField: "@rollback"},
		{name: "rollback a JSON string", base: s, rule: "must be a boolean, not a string",
			json: []string{`"rollback":true`, `"rollback":"true"`}, jsonField: "rollback"},
		{name: "PassengerData BookingRef missing", base: pd, rule: ruleRequired,
			xml: []string{`<BookingRef>b-4711</BookingRef>`, ``}, xmlField: "BookingRef",
			json: []string{`"bookingRef":"b-4711",`, ``}, jsonField: "bookingRef"},
		{name: "PassengerData no passenger", base: pd, rule: rulePassengers,
			xml: []string{`<Passenger index="2"`, `<Other index="2"`, `<Passenger index="1"`, `<Other index="1"`}, xmlField: "Passenger",
			json: []string{`"passengers":[`, `"passengers":[],"x":[`}, jsonField: "passengers"},
		{name: "PassengerData index 0", base: pd, rule: ruleIndex,
			xml: []string{`index="2"`, `index="0"`}, xmlField: "Passenger[1]/@index",
			json: []string{`"index":2`, `"index":0`}, jsonField: "passengers[0].index"},
		{name: "PassengerData index 10", base: pd, rule: ruleIndex,
			xml: []string{`index="1"`, `index="10"`}, xmlField: "Passenger[2]/@index",
			json: []string{`"index":1`, `"index":10`}, jsonField: "passengers[1].index"},
		{name: "PassengerData index missing", base: pd, rule: ruleRequired,
			xml: []string{`index="1" `, ``}, xmlField: "Passenger[2]/@index",
			json: []string{`"index":1,`, ``}, jsonField: "passengers[1].index"},
		{name: "PassengerData index twice", base: pd, rule: "names a passenger an earlier item names too",
			xml: []string{`index="1"`, `index="2"`}, xmlField: "Passenger[2]/@index",
			json: []string{`"index":1`, `"index":2`}, jsonField: "passengers[1].index"},
		{name: "PassengerData nothing to set", base: pd, rule: rulePassengerData,
			xml: []string{` dateOfBirth="1990-05-17"`, ``}, xmlField: "Passenger[2]",
			json: []string{`,"dateOfBirth":"1990-05-17"`, ``}, jsonField: "passengers[1]"},
		{name: "PassengerData date of birth not a date", base: pd, rule: ruleDate,
			xml: []string{`1990-05-17`, `1990-02-30`}, xmlField: "Passenger[2]/@dateOfBirth",
			json: []string{`1990-05-17`, `1990-02-30`}, jsonField: "passengers[1].dateOfBirth"},
	}
}

// TestAfterSalesReplyRules: a client reading a reply refuses an Exchange
// that says neither or both of what to pay and what comes back, a
// SynchroReply's Reply that holds no reply or another SynchroReply, and
// unknown states; errors inside the wrapped reply name its path.
func TestAfterSalesReplyRules(t *testing.T) {
	for _, c := range []struct {
		name  string
		base  Message
		f     Format
		pairs []string
		field string
		rule  string
	}{
		{"Exchange without Fee", sampleExchangeBookingReply(), XML,
			[]string{`<Fee amount="10.00" currency="EUR"/>`, ``}, "Exchange/Fee", ruleRequired},
		{"Exchange with both amounts", sampleExchangeBookingReply(), JSON,
			[]string{`"amountToPay":{"amount":"28.40","currency":"EUR"}`, `"amountToPay":{"amount":"28.40","currency":"EUR"},"refundAmount":{"amount":"1","currency":"EUR"}`},
			"exchange", ruleExchangeTo},
		{"Exchange with neither amount", sampleExchangeAvailabilityReply(), XML,
			[]string{`<RefundAmount amount="12.50" currency="EUR"/>`, ``}, "Offer[2]/Exchange", ruleExchangeTo},
		{"partial CancelReply with an unknown status", samplePartialCancelReply(), JSON,
			[]string{`PARTIALLY_REFUNDED`, `PARTIAL`}, "status", ruleCancelStatus},
		{"SynchroReply unknown state", sampleSynchroReply(), XML,
			[]string{`<State>DONE`, `<State>FINISHED`}, "State", ruleSynchroState},
		{"SynchroReply without OriginalMessageId", sampleSynchroReply(), JSON,
			[]string{`"originalMessageId":"B-20261201-0002",`, ``}, "originalMessageId", ruleRequired},
		{"Reply with two replies", sampleSynchroReply(), XML,
			[]string{`</BookingReply>`, `</BookingReply><BookingReply/>`}, "Reply", ruleNestedReply},
		{"Reply with text", sampleSynchroReply(), XML,
			[]string{`<Reply>`, `<Reply>done`}, "Reply", ruleNestedReply},
		{"Reply empty", sampleSynchroReply(), JSON,
			[]string{`"reply":{"type":"BookingReply",`, `"reply":{`}, "reply.type", ruleRequired},
		{"Reply of a request", sampleSynchroReply(), XML,
			[]string{`BookingReply`, `BookingRequest`}, "Reply/BookingRequest", ruleNestedKind},
		{"Reply of a SynchroReply", sampleSynchroReply(), JSON,
			[]string{`"type":"BookingReply"`, `"type":"SynchroReply"`}, "reply.type", ruleNestedKind},
		{"bad status inside the Reply", sampleSynchroReply(), XML,
			[]string{`FULFILLED`, `BOOKED`}, "Reply/BookingReply/Status", ruleBookingStatus},
		{"bad status inside the reply", sampleSynchroReply(), JSON,
			[]string{`FULFILLED`, `BOOKED`}, "reply.status", ruleBookingStatus},
		{"unknown field inside the reply", sampleSynchroReply(), JSON,
			[]string{`"ticketControlNumber"`, `"x":1,"ticketControlNumber"`}, "reply.x", "is not a known field here"},
		{"PassengerDataReply index 0", samplePassengerDataReply(), JSON,
			[]string{`"index":3`, `"index":0`}, "passengers[2].index", ruleIndex},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, body := refusedEdit(t, c.f, c.base, c.pairs, decodeReply)
			if e.Code != CodeInvalidMessage || e.Field != c.field || e.Rule != c.rule {
				t.Errorf("got %s %q %q, want field %q rule %q\n%s", e.Code, e.Field, e.Rule, c.field, c.rule, body)
			}
		})
	}
}

// TestAfterSalesKinds: the server takes the new requests and the client
// the new replies, each only on its own side.
func TestAfterSalesKinds(t *testing.T) {
	for _, f := range []Format{XML, JSON} {
		for _, m := range []Request{sampleSynchroRequest(), samplePassengerDataRequest(), samplePartialCancelRequest()} {
			b, _ := Encode(f, m)
			if got, err := Decode(f, b); err != nil || !reflect.DeepEqual(got, m) {
				t.Errorf("%v %s: %+v %v", f, m.Kind(), got, err)
			}
			if _, err := DecodeReply(f, b); err == nil {
				t.Errorf("%v: DecodeReply took a %s", f, m.Kind())
			}
		}
		for _, m := range []Reply{sampleSynchroReply(), samplePassengerDataReply(), samplePartialCancelReply()} {
			b, _ := Encode(f, m)
			if got, err := DecodeReply(f, b); err != nil || !reflect.DeepEqual(got, m) {
				t.Errorf("%v %s: %+v %v", f, m.Kind(), got, err)
			}
			var e *Error
			if _, err := Decode(f, b); !errors.As(err, &e) || e.Code != CodeUnsupportedMessage {
				t.Errorf("%v: Decode of a %s: %v", f, m.Kind(), err)
			}
		}
	}
}

// TestSynchroReplyWraps: every reply kind but SynchroReply travels inside
// a SynchroReply unchanged in both forms, and a namespaced SynchroReply
// declares its namespace once, on the root.
func TestSynchroReplyWraps(t *testing.T) {
	for _, inner := range []Reply{
		sampleAvailabilityReply(), sampleExchangeBookingReply(), samplePartialCancelReply(),
		samplePassengerDataReply(), sampleReplacementProposal(), sampleNegativeReply(),
	} {
		for _, f := range []Format{XML, JSON} {
			m := sampleSynchroReply()
			m.Reply = inner
			b, err := Encode(f, m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeReply(f, b)
			if err != nil || !reflect.DeepEqual(got, Reply(m)) {
				t.Errorf("%v %s: %+v %v\n%s", f, inner.Kind(), got, err, b)
			}
		}
	}
	m := sampleSynchroReply()
	m.Header.Namespaced = true
	b, _ := Encode(XML, m)
	if n := bytes.Count(b, []byte("xmlns")); n != 1 {
		t.Fatalf("%d namespace declarations:\n%s", n, b)
	}
	got, err := DecodeReply(XML, b)
	if err != nil {
		t.Fatal(err)
	}
	s := got.(*SynchroReply)
	if !s.Header.Namespaced || !s.Reply.ReplyHeader().Namespaced {
		t.Errorf("namespace lost: %+v %+v", s.Header, s.Reply.ReplyHeader())
	}
	// A typed nil Reply writes no Reply at all.
	m.Reply = (*BookingReply)(nil)
	b, _ = Encode(JSON, m)
	if bytes.Contains(b, []byte("reply")) {
		t.Errorf("a nil reply was written: %s", b)
	}
}
