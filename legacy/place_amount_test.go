package legacy

import (
	"slices"
	"testing"
)

// TestPlaceAmounts: a BookingReply's places carry their amounts in both
// forms, read back as written; a reply with an amount on some places
// only reads none; a CancelRequest's Place copied from a BookingReply,
// amount and all, is taken (the amount left aside), but not one whose
// amount is not an amount.
func TestPlaceAmounts(t *testing.T) {
	reply := &BookingReply{Header: ReplyHeader{CorrelationID: "b1"}, BookingRef: "r-1", Status: StatusConfirmed,
		Price: &Price{Amount: "18.00", Currency: "EUR"}, Places: []Place{{"3", "11"}, {"3", "12"}}, PlaceAmounts: []string{"12.00", "6.00"}}
	for _, f := range []Format{XML, JSON} {
		b, err := Encode(f, reply)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeReply(f, b)
		if br, ok := got.(*BookingReply); err != nil || !ok || !slices.Equal(br.PlaceAmounts, reply.PlaceAmounts) {
			t.Errorf("%s: %s read back as %#v, %v", f, b, got, err)
		}
	}
	some := []byte(`<BookingReply correlationId="b1"><BookingRef>r-1</BookingRef><Status>CONFIRMED</Status><Place coach="3" number="11" amount="12.00"/><Place coach="3" number="12"/></BookingReply>`)
	if got, err := DecodeReply(XML, some); err != nil || got.(*BookingReply).PlaceAmounts != nil {
		t.Errorf("amounts on some places only: %#v, %v", got, err)
	}
	cancel := `<CancelRequest messageId="c1"><BookingRef>r-1</BookingRef><Place coach="3" number="12" amount="6.00"/></CancelRequest>`
	if req, err := Decode(XML, []byte(cancel)); err != nil || req.(*CancelRequest).Places[0] != (Place{"3", "12"}) {
		t.Errorf("a copied place: %#v, %v", req, err)
	}
	bad := `<CancelRequest messageId="c1"><BookingRef>r-1</BookingRef><Place coach="3" number="12" amount="six"/></CancelRequest>`
	if _, err := Decode(XML, []byte(bad)); err == nil {
		t.Errorf("a place with amount \"six\" was taken")
	}
}
