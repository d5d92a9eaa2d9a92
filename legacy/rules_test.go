package legacy

import (
	"errors"
	"strings"
	"testing"
)

// ruleCase breaks one rule by editing an encoded sample, in XML and in
// JSON, and says which field and rule the error must name.
type ruleCase struct {
	name      string
	base      Message
	xml       []string // old, new pairs for strings.NewReplacer; nil skips XML
	xmlField  string
	json      []string
	jsonField string
	rule      string
	code      Code // "" means CodeInvalidMessage
	noID      bool // the error cannot carry the messageId
}

func ruleCases() []ruleCase {
	b, c := sampleBookingRequest(), sampleCancelRequest()
	long := func(n int) string { return strings.Repeat("x", n) }
	return append([]ruleCase{
		{name: "messageId missing", base: b, noID: true, rule: ruleRequired,
			xml: []string{`messageId="B-20261201-0002" `, ``}, xmlField: "@messageId",
			json: []string{`"messageId":"B-20261201-0002",`, ``}, jsonField: "messageId"},
		{name: "messageId bad character", base: b, noID: true, rule: ruleMessageID,
			xml: []string{`B-20261201-0002`, `B/1`}, xmlField: "@messageId",
			json: []string{`B-20261201-0002`, `B/1`}, jsonField: "messageId"},
		{name: "messageId too long", base: b, noID: true, rule: ruleMessageID,
			xml: []string{`B-20261201-0002`, long(65)}, xmlField: "@messageId",
			json: []string{`B-20261201-0002`, long(65)}, jsonField: "messageId"},
		{name: "sentAt not RFC 3339", base: b, rule: ruleDateTime,
			xml: []string{`2026-11-21T10:00:00Z`, `2026-11-21 10:00`}, xmlField: "@sentAt",
			json: []string{`2026-11-21T10:00:00Z`, `2026-11-21 10:00`}, jsonField: "sentAt"},
		{name: "sender zero", base: b, rule: ruleSender,
			xml: []string{`sender="87"`, `sender="0"`}, xmlField: "@sender",
			json: []string{`"sender":87`, `"sender":0`}, jsonField: "sender"},
		{name: "sender too big", base: b, rule: ruleSender,
			xml: []string{`sender="87"`, `sender="10000"`}, xmlField: "@sender",
			json: []string{`"sender":87`, `"sender":10000`}, jsonField: "sender"},
		{name: "sender not an integer", base: b, rule: ruleInteger,
			xml: []string{`sender="87"`, `sender="8x"`}, xmlField: "@sender",
			json: []string{`"sender":87`, `"sender":-87`}, jsonField: "sender"},
		{name: "sender a JSON string", base: b, rule: "must be a number, not a string",
			json: []string{`"sender":87`, `"sender":"87"`}, jsonField: "sender"},
		{name: "sender twice", base: b, rule: ruleOnce,
			xml: []string{`sender="87"`, `sender="87" sender="88"`}, xmlField: "@sender",
			json: []string{`"sender":87`, `"sender":87,"sender":88`}, jsonField: "sender"},
		{name: "informationOnly not a boolean", base: b, rule: ruleBool,
			xml: []string{`sender="87"`, `sender="87" informationOnly="yes"`}, xmlField: "@informationOnly"},
		{name: "informationOnly a JSON string", base: b, rule: "must be a boolean, not a string",
			json: []string{`"sender":87`, `"sender":87,"informationOnly":"true"`}, jsonField: "informationOnly"},
		{name: "Journey missing", base: b, rule: ruleRequired,
			xml: []string{`<Journey>`, `<Trip>`, `</Journey>`, `</Trip>`}, xmlField: "Journey",
			json: []string{`"journey":`, `"trip":`}, jsonField: "journey"},
		{name: "Journey not an object", base: b, rule: "must be an object, not an array",
			json: []string{`"journey":{`, `"journey":[],"x":{`}, jsonField: "journey"},
		{name: "TrainNumber missing", base: b, rule: ruleRequired,
			xml: []string{`<TrainNumber>9203</TrainNumber>`, ``}, xmlField: "Journey/TrainNumber",
			json: []string{`"trainNumber":"9203",`, ``}, jsonField: "journey.trainNumber"},
		{name: "TrainNumber too long", base: b, rule: ruleTrainNumber,
			xml: []string{`>9203<`, `>920345<`}, xmlField: "Journey/TrainNumber",
			json: []string{`"9203"`, `"920345"`}, jsonField: "journey.trainNumber"},
		{name: "TrainNumber empty", base: b, rule: ruleTrainNumber,
			xml: []string{`>9203<`, `><`}, xmlField: "Journey/TrainNumber",
			json: []string{`"9203"`, `""`}, jsonField: "journey.trainNumber"},
		{name: "TrainNumber bad character", base: b, rule: ruleTrainNumber,
			xml: []string{`>9203<`, `>92-3<`}, xmlField: "Journey/TrainNumber",
			json: []string{`"9203"`, `"92 3"`}, jsonField: "journey.trainNumber"},
		{name: "TrainNumber twice", base: b, rule: ruleOnce,
			xml: []string{`<TrainNumber>9203</TrainNumber>`, `<TrainNumber>9203</TrainNumber><TrainNumber>9204</TrainNumber>`}, xmlField: "Journey/TrainNumber",
			json: []string{`"trainNumber":"9203",`, `"trainNumber":"9203","trainNumber":"9204",`}, jsonField: "journey.trainNumber"},
		{name: "TrainNumber a JSON number", base: b, rule: "must be a string, not a number",
			json: []string{`"trainNumber":"9203"`, `"trainNumber":9203`}, jsonField: "journey.trainNumber"},
		{name: "TrainNumber with attributes", base: b, rule: "must be an element with text only",
			xml: []string{`<TrainNumber>`, `<TrainNumber kind="x">`}, xmlField: "Journey/TrainNumber"},
		{name: "DepartureDate not a calendar date", base: b, rule: ruleDate,
			xml: []string{`2026-12-01`, `2026-02-30`}, xmlField: "Journey/DepartureDate",
			json: []string{`2026-12-01`, `2026-02-30`}, jsonField: "journey.departureDate"},
		{name: "DepartureDate wrong form", base: b, rule: ruleDate,
			xml: []string{`2026-12-01`, `2026-12-1`}, xmlField: "Journey/DepartureDate",
			json: []string{`2026-12-01`, `01.12.2026`}, jsonField: "journey.departureDate"},
		{name: "DepartureDate missing", base: b, rule: ruleRequired,
			xml: []string{`<DepartureDate>2026-12-01</DepartureDate>`, ``}, xmlField: "Journey/DepartureDate",
			json: []string{`"departureDate":"2026-12-01",`, ``}, jsonField: "journey.departureDate"},
		{name: "DepartureTime hour 24", base: b, rule: ruleTime,
			xml: []string{`07:56`, `24:00`}, xmlField: "Journey/DepartureTime",
			json: []string{`07:56`, `24:00`}, jsonField: "journey.departureTime"},
		{name: "DepartureTime one-digit hour", base: b, rule: ruleTime,
			xml: []string{`07:56`, `7:56`}, xmlField: "Journey/DepartureTime",
			json: []string{`07:56`, `07:60`}, jsonField: "journey.departureTime"},
		{name: "From six digits", base: b, rule: ruleStation,
			xml: []string{`<From>8727100</From>`, `<From>872710</From>`}, xmlField: "Journey/From",
			json: []string{`"from":"8727100"`, `"from":"urn:uic:stn:872710x"`}, jsonField: "journey.from"},
		{name: "From missing", base: b, rule: ruleRequired,
			xml: []string{`<From>8727100</From>`, ``}, xmlField: "Journey/From",
			json: []string{`"from":"8727100",`, ``}, jsonField: "journey.from"},
		{name: "To same as From", base: b, rule: ruleSameStation,
			xml: []string{`<To>8500010</To>`, `<To>urn:uic:stn:8727100</To>`}, xmlField: "Journey/To",
			json: []string{`"to":"8500010"`, `"to":"8727100"`}, jsonField: "journey.to"},
		{name: "To missing", base: b, rule: ruleRequired,
			xml: []string{`<To>8500010</To>`, ``}, xmlField: "Journey/To",
			json: []string{`"to":"8500010",`, ``}, jsonField: "journey.to"},
		{name: "Carrier three digits", base: b, rule: ruleRICS,
			xml: []string{`1187`, `118`}, xmlField: "Journey/Carrier",
			json: []string{`1187`, `118`}, jsonField: "journey.carrier"},
		{name: "PlaceRequest missing", base: b, rule: ruleRequired,
			xml: []string{`PlaceRequest>`, `Places>`}, xmlField: "PlaceRequest",
			json: []string{`"placeRequest":`, `"places":`}, jsonField: "placeRequest"},
		{name: "TravelClass 3", base: b, rule: ruleTravelClass,
			xml: []string{`<TravelClass>1`, `<TravelClass>3`}, xmlField: "PlaceRequest/TravelClass",
			json: []string{`"travelClass":1`, `"travelClass":3`}, jsonField: "placeRequest.travelClass"},
		{name: "TravelClass missing", base: b, rule: ruleRequired,
			xml: []string{`<TravelClass>1</TravelClass>`, ``}, xmlField: "PlaceRequest/TravelClass",
			json: []string{`"travelClass":1,`, ``}, jsonField: "placeRequest.travelClass"},
		{name: "ServiceCode 4", base: b, rule: ruleServiceCode,
			xml: []string{`<ServiceCode>1`, `<ServiceCode>4`}, xmlField: "PlaceRequest/ServiceCode",
			json: []string{`"serviceCode":1`, `"serviceCode":4`}, jsonField: "placeRequest.serviceCode"},
		{name: "ServiceCode not a number", base: b, rule: ruleInteger,
			xml: []string{`<ServiceCode>1`, `<ServiceCode>seat`}, xmlField: "PlaceRequest/ServiceCode",
			json: []string{`"serviceCode":1`, `"serviceCode":1.0`}, jsonField: "placeRequest.serviceCode"},
		{name: "ServiceLevel too long", base: b, rule: ruleServiceLevel,
			xml: []string{`>AV<`, `>ABCDEFGHI<`}, xmlField: "PlaceRequest/ServiceLevel",
			json: []string{`"AV"`, `"A-V"`}, jsonField: "placeRequest.serviceLevel"},
		{name: "no Tariff", base: b, rule: ruleTariffs,
			xml: []string{`<Tariff code="1" count="2"/>`, ``}, xmlField: "PlaceRequest/Tariff",
			json: []string{`[{"code":1,"count":2}]`, `[]`}, jsonField: "placeRequest.tariffs"},
		{name: "tariffs not an array", base: b, rule: "must be an array, not an object",
			json: []string{`[{"code":1,"count":2}]`, `{"code":1,"count":2}`}, jsonField: "placeRequest.tariffs"},
		{name: "tariff not an object", base: b, rule: "must be an object, not a number",
			json: []string{`[{"code":1,"count":2}]`, `[{"code":1,"count":2},5]`}, jsonField: "placeRequest.tariffs[1]"},
		{name: "count 0", base: b, rule: ruleCount,
			xml: []string{`count="2"`, `count="0"`}, xmlField: "PlaceRequest/Tariff[1]/@count",
			json: []string{`"count":2`, `"count":0`}, jsonField: "placeRequest.tariffs[0].count"},
		{name: "count 10", base: b, rule: ruleCount,
			xml: []string{`count="2"`, `count="10"`}, xmlField: "PlaceRequest/Tariff[1]/@count",
			json: []string{`"count":2`, `"count":10`}, jsonField: "placeRequest.tariffs[0].count"},
		{name: "count missing", base: b, rule: ruleRequired,
			xml: []string{` count="2"`, ``}, xmlField: "PlaceRequest/Tariff[1]/@count",
			json: []string{`,"count":2`, ``}, jsonField: "placeRequest.tariffs[0].count"},
		{name: "tariff code too big", base: b, rule: ruleTariffCode,
			xml: []string{`code="1"`, `code="10000"`}, xmlField: "PlaceRequest/Tariff[1]/@code",
			json: []string{`"code":1`, `"code":10000`}, jsonField: "placeRequest.tariffs[0].code"},
		{name: "tariff code negative", base: b, rule: ruleInteger,
			xml: []string{`code="1"`, `code="-1"`}, xmlField: "PlaceRequest/Tariff[1]/@code",
			json: []string{`"code":1`, `"code":-1`}, jsonField: "placeRequest.tariffs[0].code"},
		{name: "more than 9 places", base: b, rule: rulePlaces,
			xml: []string{`<Tariff code="1" count="2"/>`, `<Tariff code="1" count="5"/><Tariff code="2" count="5"/>`}, xmlField: "PlaceRequest/Tariff",
			json: []string{`{"code":1,"count":2}`, `{"code":1,"count":5},{"code":2,"count":5}`}, jsonField: "placeRequest.tariffs"},
		{name: "more than 9 tariffs", base: b, rule: "must appear at most 9 times",
			xml: []string{`<Tariff code="1" count="2"/>`, strings.Repeat(`<Tariff code="1" count="1"/>`, 10)}, xmlField: "PlaceRequest/Tariff"},
		{name: "more than 9 tariff items", base: b, rule: "must have at most 9 items",
			json: []string{`{"code":1,"count":2}`, strings.TrimSuffix(strings.Repeat(`{"code":1,"count":1},`, 10), ",")}, jsonField: "placeRequest.tariffs"},
		{name: "more passengers than places", base: b, rule: "must be at most 1, one per place asked for",
			xml: []string{`count="2"`, `count="1"`}, xmlField: "Passenger",
			json: []string{`"count":2`, `"count":1`}, jsonField: "passengers"},
		{name: "lastName missing", base: b, rule: ruleRequired,
			xml: []string{` lastName="Müller"`, ``}, xmlField: "Passenger[1]/@lastName",
			json: []string{`"lastName":"Müller",`, ``}, jsonField: "passengers[0].lastName"},
		{name: "firstName with a control character", base: b, rule: ruleName,
			xml: []string{`firstName="Anna"`, `firstName="An&#x9;na"`}, xmlField: "Passenger[1]/@firstName",
			json: []string{`"firstName":"Anna"`, `"firstName":"An\u0007na"`}, jsonField: "passengers[0].firstName"},
		{name: "lastName too long", base: b, rule: ruleName,
			xml: []string{`Müller`, long(71)}, xmlField: "Passenger[1]/@lastName",
			json: []string{`Müller`, long(71)}, jsonField: "passengers[0].lastName"},
		{name: "dateOfBirth not a date", base: b, rule: ruleDate,
			xml: []string{`1990-05-17`, `1990-13-01`}, xmlField: "Passenger[1]/@dateOfBirth",
			json: []string{`1990-05-17`, `1990-05-17T00:00:00Z`}, jsonField: "passengers[0].dateOfBirth"},
		{name: "Passenger unknown attribute", base: b, rule: "is not a known attribute here",
			xml: []string{`<Passenger lastName=`, `<Passenger title="Dr" lastName=`}, xmlField: "Passenger[2]/@title"},
		{name: "passenger unknown field", base: b, rule: "is not a known field here",
			json: []string{`{"lastName":"O'Brien`, `{"title":"Dr","lastName":"O'Brien`}, jsonField: "passengers[1].title"},
		{name: "OfferRef with a space", base: b, rule: ruleOfferRef,
			xml: []string{`offer-7f3a9c:rp-1`, `offer 1`}, xmlField: "OfferRef",
			json: []string{`offer-7f3a9c:rp-1`, `offer 1`}, jsonField: "offerRef"},
		{name: "OfferRef an object", base: b, rule: "must be a string, not an object",
			json: []string{`"offer-7f3a9c:rp-1"`, `{"id":1}`}, jsonField: "offerRef"},
		{name: "ExchangeOf too long", base: b, rule: ruleRef,
			xml: []string{`<OfferRef>`, `<ExchangeOf>` + long(129) + `</ExchangeOf><OfferRef>`}, xmlField: "ExchangeOf",
			json: []string{`"offerRef":`, `"exchangeOf":"` + long(129) + `","offerRef":`}, jsonField: "exchangeOf"},
		{name: "unknown element", base: b, rule: "is not a known element here",
			xml: []string{`<OfferRef>`, `<Note>hi</Note><OfferRef>`}, xmlField: "Note"},
		{name: "unknown field", base: b, rule: "is not a known field here",
			json: []string{`"offerRef":`, `"note":"hi","offerRef":`}, jsonField: "note"},
		{name: "unknown nested field", base: b, rule: "is not a known field here",
			json: []string{`"carrier":"1187"`, `"carrier":"1187","Carrier":"1187"`}, jsonField: "journey.Carrier"},
		{name: "text in a container", base: b, rule: "must hold elements, not text",
			xml: []string{`<PlaceRequest>`, `<PlaceRequest>two seats`}, xmlField: "PlaceRequest"},
		{name: "BookingRef missing", base: c, rule: ruleRequired,
			xml: []string{`<BookingRef>b-4711</BookingRef>`, ``}, xmlField: "BookingRef",
			json: []string{`"bookingRef":"b-4711",`, ``}, jsonField: "bookingRef"},
		{name: "BookingRef empty", base: c, rule: ruleRef,
			xml: []string{`b-4711`, ``}, xmlField: "BookingRef",
			json: []string{`b-4711`, ``}, jsonField: "bookingRef"},
		{name: "BookingRef too long", base: c, rule: ruleRef,
			xml: []string{`b-4711`, long(129)}, xmlField: "BookingRef",
			json: []string{`b-4711`, long(129)}, jsonField: "bookingRef"},
		{name: "ReasonCode not an integer", base: c, rule: ruleInteger,
			xml: []string{`<ReasonCode>3`, `<ReasonCode>three`}, xmlField: "ReasonCode",
			json: []string{`"reasonCode":3`, `"reasonCode":3e0`}, jsonField: "reasonCode"},
		{name: "ReasonCode a JSON string", base: c, rule: "must be a number, not a string",
			json: []string{`"reasonCode":3`, `"reasonCode":"3"`}, jsonField: "reasonCode"},
		{name: "ReasonCode too big", base: c, rule: ruleReasonCode,
			xml: []string{`<ReasonCode>3`, `<ReasonCode>10000`}, xmlField: "ReasonCode",
			json: []string{`"reasonCode":3`, `"reasonCode":10000`}, jsonField: "reasonCode"},
		{name: "type missing", base: c, rule: ruleRequired,
			json: []string{`"type":"CancelRequest",`, ``}, jsonField: "type"},
		{name: "type not a string", base: c, rule: "must be a string, not a number",
			json: []string{`"type":"CancelRequest"`, `"type":1`}, jsonField: "type"},
		{name: "unknown kind", base: c, code: CodeUnsupportedMessage,
			rule: "ChangeRequest is not a legacy request the converter takes",
			xml:  []string{`CancelRequest`, `ChangeRequest`}, xmlField: "",
			json: []string{`CancelRequest`, `ChangeRequest`}, jsonField: "type"},
		{name: "a reply sent as request", base: c, code: CodeUnsupportedMessage,
			rule: "CancelReply is not a legacy request the converter takes",
			xml:  []string{`CancelRequest`, `CancelReply`}, xmlField: "",
			json: []string{`CancelRequest`, `CancelReply`}, jsonField: "type"},
		{name: "other namespace", base: c,
			rule: `must be in namespace urn:uic:90918-1:legacy:1 or in none, not in "urn:other"`,
			xml:  []string{`<CancelRequest `, `<CancelRequest xmlns="urn:other" `}, xmlField: "CancelRequest"},
		{name: "child in another namespace than the root", base: c,
			rule: `must be in the namespace of the root element (""), not in "urn:uic:90918-1:legacy:1"`,
			xml:  []string{`<BookingRef>`, `<BookingRef xmlns="urn:uic:90918-1:legacy:1">`}, xmlField: "BookingRef"},
		{name: "DOCTYPE", base: c, rule: "DOCTYPE and other <!...> declarations are not allowed",
			xml: []string{`<CancelRequest `, `<!DOCTYPE CancelRequest [<!ENTITY e "x">]><CancelRequest `}, noID: true},
		{name: "truncated", base: c, rule: "is not well-formed XML (line 6): unexpected EOF",
			xml: []string{`</CancelRequest>`, ``}},
		{name: "truncated JSON", base: c, rule: "is not well-formed JSON: unexpected end of input",
			json: []string{`}`, ``}},
		{name: "second root element", base: c, rule: "only one root element is allowed",
			xml: []string{`</CancelRequest>`, `</CancelRequest><CancelRequest/>`}},
		{name: "second JSON value", base: c, rule: "only one JSON object is allowed",
			json: []string{`"reasonCode":3}`, `"reasonCode":3}{}`}},
		{name: "text after the root", base: c, rule: "text outside the root element is not allowed",
			xml: []string{`</CancelRequest>`, `</CancelRequest>x`}},
		{name: "unknown entity", base: c, rule: "is not well-formed XML (line 3): invalid character entity &nbsp;",
			xml: []string{`b-4711`, `b&nbsp;4711`}},
	}, append(afterSalesRuleCases(), ticketRuleCases()...)...)
}

func TestRules(t *testing.T) {
	for _, c := range ruleCases() {
		for _, f := range []Format{XML, JSON} {
			pairs, field := c.xml, c.xmlField
			if f == JSON {
				pairs, field = c.json, c.jsonField
			}
			if pairs == nil {
				continue
			}
			t.Run(c.name+"/"+f.String(), func(t *testing.T) {
				e, body := refusedEdit(t, f, c.base, pairs, decodeRequest)
				code := c.code
				if code == "" {
					code = CodeInvalidMessage
				}
				if e.Code != code || e.Field != field || e.Rule != c.rule {
					t.Errorf("got code %s field %q rule %q\nwant code %s field %q rule %q\n%s",
						e.Code, e.Field, e.Rule, code, field, c.rule, body)
				}
				wantID := c.base.(Request).MessageID()
				if c.noID {
					wantID = ""
				}
				if e.MessageID != wantID {
					t.Errorf("MessageID = %q, want %q", e.MessageID, wantID)
				}
			})
		}
	}
}

// TestAccepted covers inputs that look odd but are valid.
func TestAccepted(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     Format
		body  string
		check func(Request) bool
	}{
		{"urn station and null offerRef", JSON,
			`{"type":"BookingRequest","messageId":"x","offerRef":null,"informationOnly":true,"journey":{"trainNumber":"ICE5","departureDate":"2028-02-29","from":"urn:uic:stn:8000105","to":"8000261"},"placeRequest":{"travelClass":1,"serviceCode":2,"tariffs":[{"code":0,"count":9}]}}`,
			func(r Request) bool {
				b := r.(*BookingRequest)
				return b.Journey.From == "8000105" && b.OfferRef == "" && b.InformationOnly && b.Places.Places() == 9
			}},
		{"xsd boolean 1, comments, declaration, white space", XML,
			`<?xml version="1.0" encoding="utf-8"?><!-- resend -->
<BookingRequest informationOnly="1" messageId="a.b_c:d-e">
  <Journey><TrainNumber> 9203 </TrainNumber><DepartureDate>2026-12-01</DepartureDate><From>8727100</From><To>8500010</To></Journey>
  <PlaceRequest><TravelClass>2</TravelClass><ServiceCode>1</ServiceCode><Tariff count="1" code="4"/></PlaceRequest>
</BookingRequest>`,
			func(r Request) bool {
				b := r.(*BookingRequest)
				return b.InformationOnly && b.Journey.TrainNumber == "9203" && b.MessageID() == "a.b_c:d-e"
			}},
		{"ISO-8859-1 declaration", XML,
			"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><CancelRequest messageId=\"m\"><BookingRef>b\xe9</BookingRef></CancelRequest>",
			nil},
		{"UTF-8 byte order mark, XML", XML,
			"\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"UTF-8\"?><CancelRequest messageId=\"m\"><BookingRef>b1</BookingRef></CancelRequest>",
			func(r Request) bool { return r.(*CancelRequest).BookingRef == "b1" }},
		{"UTF-8 byte order mark, JSON", JSON,
			"\xef\xbb\xbf" + `{"type":"CancelRequest","messageId":"m","bookingRef":"b1"}`,
			func(r Request) bool { return r.(*CancelRequest).BookingRef == "b1" }},
		{"cancel without reason", XML,
			`<CancelRequest messageId="m" sentAt="2026-11-21T11:00:00.5+01:00"><BookingRef>b1</BookingRef></CancelRequest>`,
			func(r Request) bool {
				c := r.(*CancelRequest)
				return c.ReasonCode == nil && c.Header.SentAt.Equal(sampleTime.Add(500e6))
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Decode(c.f, []byte(c.body))
			if err != nil {
				if c.check == nil {
					// ISO-8859-1: é is not printable ASCII, so the booking
					// reference rule, not the charset, must be what refuses it.
					var e *Error
					if errors.As(err, &e) && e.Field == "BookingRef" && e.Rule == ruleRef {
						return
					}
				}
				t.Fatal(err)
			}
			if c.check == nil || !c.check(r) {
				t.Errorf("decoded %+v", r)
			}
		})
	}
}

func TestUnsupportedEncoding(t *testing.T) {
	_, err := Decode(XML, []byte(`<?xml version="1.0" encoding="EBCDIC"?><CancelRequest messageId="m"/>`))
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidMessage || !strings.Contains(e.Rule, `encoding "EBCDIC" is not supported`) {
		t.Fatalf("got %v", err)
	}
}

func TestLimits(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat("<a>", n) + strings.Repeat("</a>", n)
	}
	many := func(n int) string { return strings.Repeat("<a/>", n) }
	for _, c := range []struct {
		name   string
		f      Format
		body   string
		rule   string
		status int
	}{
		{"XML too deep", XML, `<CancelRequest messageId="m">` + nest(8) + `</CancelRequest>`, "nests elements deeper than 8", 400},
		{"XML too many elements", XML, `<CancelRequest messageId="m">` + many(1024) + `</CancelRequest>`, "has more than 1024 elements", 400},
		{"JSON too deep", JSON, `{"messageId":"m","x":` + strings.Repeat("[", 8) + strings.Repeat("]", 8) + `}`, "nests values deeper than 8", 400},
		{"JSON too many values", JSON, `{"messageId":"m","x":[` + strings.TrimSuffix(strings.Repeat("1,", 1024), ",") + `]}`, "has more than 1024 values", 400},
		{"XML too large", XML, `<CancelRequest messageId="m">` + strings.Repeat(" ", MaxBodyBytes) + `</CancelRequest>`, "the body is larger than 1048576 bytes", 413},
		{"JSON too large", JSON, `{"messageId":"m"` + strings.Repeat(" ", MaxBodyBytes) + `}`, "the body is larger than 1048576 bytes", 413},
		{"empty XML", XML, ``, "the message is empty: an XML root element is required", 400},
		{"empty JSON", JSON, ` `, "the message is empty: a JSON object is required", 400},
		{"JSON array", JSON, `[]`, "must be a JSON object, not an array", 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.f, []byte(c.body))
			var e *Error
			if !errors.As(err, &e) || e.Rule != c.rule || e.HTTPStatus() != c.status {
				t.Fatalf("got %v (status %d), want rule %q status %d", err, e.HTTPStatus(), c.rule, c.status)
			}
			if c.status == 413 && !errors.Is(err, ErrTooLarge) {
				t.Error("not ErrTooLarge")
			}
		})
	}
	// Just below the bounds is fine, so the bounds are where they say.
	ok := `<CancelRequest messageId="m"><BookingRef>b</BookingRef>` + nest(0) + `</CancelRequest>`
	if _, err := Decode(XML, []byte(ok)); err != nil {
		t.Fatal(err)
	}
}
