package converter

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestRecordEncodeAsMarshal holds the journal record's hand-written
// encoder to encoding/json's Marshal (without HTML escaping): the same
// bytes, for records with every field set or left out and strings that
// need escaping, and the record reads back as it was written.
func TestRecordEncodeAsMarshal(t *testing.T) {
	limit := time.Date(2026, 12, 1, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	odd := "a\"b\\c\n\r\t\b\f\x00\x1f\x7f <&> é 日本 \u2028\u2029 \xff\xfe end"
	recs := []*exchangeRecord{
		{V: 1, Partner: "sbb", MessageID: "B-1", Kind: "BookingRequest", BodyHash: "ab12", State: stateRunning,
			Created: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)},
		{V: 1, Partner: "p/" + odd, MessageID: odd, Kind: "CancelRequest", BodyHash: "00", Namespaced: true,
			State: stateBooked, OfferID: odd, BookingBody: json.RawMessage(`{"offers":[{"offerId":"o \u0026 1","x":[1,2.5,null,true]}]}`),
			BookingID: "b-4711", ConfirmBy: &limit, Created: time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.UTC),
			Updated: time.Date(2026, 11, 21, 10, 0, 1, 0, time.UTC), Attempts: 3},
		{V: 1, Partner: "sbb", MessageID: "B-2", Kind: "BookingRequest", BodyHash: "ff", State: stateDone,
			Reply:   &storedReply{Body: json.RawMessage(`{"type":"BookingReply","text":"` + "\\u0026 ok" + `"}`), Status: 200, Outcome: OutcomeOK},
			Created: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)},
		{V: 1, Partner: "sbb", MessageID: "B-3", Kind: "BookingRequest", BodyHash: "ff", State: stateUnsettled,
			Reply: &storedReply{Status: 502, Outcome: "partner_unavailable"}},
		{V: 1, Partner: "sbb", MessageID: "C-4", Kind: "CancelRequest", BodyHash: "ff", State: stateRefundConfirming, BookingID: "b-1",
			After: &afterSales{RefundOfferID: "ro-1", Status: "PARTIALLY_REFUNDED", Places: []legacy.Place{{Coach: odd, Number: "46"}, {Number: "7"}},
				RolledBack: &rolledBack{By: "S-1", RefundAmount: &legacy.Price{Amount: "1.00", Currency: "EUR"}}},
			Created: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)},
	}
	for i, rec := range recs {
		got, err := rec.encode()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Errorf("record %d:\n got %s\nwant %s", i, got, w)
		}
		back, err := decodeRecord(got)
		if err != nil {
			t.Fatalf("record %d does not read back: %v", i, err)
		}
		var again exchangeRecord
		if err := json.Unmarshal(want.Bytes(), &again); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, &again) {
			t.Errorf("record %d reads back as %+v, want %+v", i, back, &again)
		}
	}
	if _, err := (&exchangeRecord{V: 1, MessageID: "x", Created: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}).encode(); err == nil {
		t.Error("a time past year 9999 encoded; Marshal refuses it")
	}
}

// TestRecordStateWithoutDecoding: settlement reads a record's state
// without decoding it, and is not fooled by the same text inside a string
// or a body.
func TestRecordStateWithoutDecoding(t *testing.T) {
	trick := `x","state":"done","y":"`
	for _, st := range []string{stateRunning, stateIntent, stateBooked, stateUnsettled, stateDone} {
		rec := &exchangeRecord{V: 1, Partner: trick, MessageID: trick, Kind: trick, BodyHash: trick, State: st,
			BookingBody: json.RawMessage(`{"state":"done"}`), Reply: &storedReply{Body: json.RawMessage(`{"state":"done"}`)}}
		raw, err := rec.encode()
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := recordState(raw); !ok || got != st {
			t.Errorf("state %q read as %q, %v from %s", st, got, ok, raw)
		}
	}
	if _, ok := recordState([]byte(`{"v":1}`)); ok {
		t.Error("a state found in a record without one")
	}
}

// TestOfferOf: the offer id of a POST /bookings body, read where the
// converter's marshalling puts it or, when that is not plain, decoded.
func TestOfferOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"offers":[{"offerId":"offer-9203","passengerRefs":["p1"]}]}`:       "offer-9203",
		`{"offers":[{"offerId":"a\"b\u00e9","passengerRefs":["p1"]}]}`:       "a\"bé",
		`{"externalRef":"x","offers":[{"passengerRefs":[],"offerId":"o2"}]}`: "o2",
		`{"offers":[]}`: "",
		`not json`:      "",
	} {
		if got := offerOf([]byte(body)); got != want {
			t.Errorf("offerOf(%s) = %q, want %q", body, got, want)
		}
	}
}
