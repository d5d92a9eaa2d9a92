package converter

import (
	"bytes"

	"github.com/go-json-experiment/json"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// decodeAnswer reads a partner's 2xx answer into out, an osdm type or the
// converter's view of one (offerAnswer), with the implementation behind
// encoding/json/v2. Against encoding/json it is strict where a partner's
// answer could be read two ways: member names match exactly as the OSDM
// spec writes them ("OfferId" is not "offerId"), an object may not repeat
// a name, strings must be valid UTF-8, times must be RFC 3339 as written
// (no comma before a fraction, no zone offset of 24 hours); nesting is
// bounded (10 000 levels). Members the types do not have are skipped, as
// OSDM lets a partner add its own: a skipped member is held to the JSON
// rules above (syntax, UTF-8, no repeated name), not to any type.
//
// Each string read is a copy of its own: what the converter puts in a
// legacy reply (an offerId, a currency) lives on in the reply cache and
// keeps no more of the partner's answer alive than that.
//
// An offerAnswer's offers start with room for as many as the answer has
// "offerId" names (at most 32; each offer has one, so the library does not
// grow the slice 1, 2, 4 on the way). An offer search answer that
// offerAnswer cannot read is read again into
// osdm.OfferCollectionResponse, whose error is returned: it names the
// first member in error by its osdm type, as for every other answer.
func decodeAnswer(body []byte, out any) error {
	view, _ := out.(*offerAnswer)
	if view != nil && view.Offers == nil {
		if n := bytes.Count(body, []byte(`"offerId"`)); n > 0 {
			view.Offers = make([]answerOffer, 0, min(n, 32))
		}
	}
	err := json.Unmarshal(body, out)
	if view != nil && err != nil {
		if fullErr := json.Unmarshal(body, new(osdm.OfferCollectionResponse)); fullErr != nil {
			return fullErr
		}
	}
	return err
}
