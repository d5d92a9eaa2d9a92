package converter

import (
	"github.com/go-json-experiment/json"
)

// decodeAnswer reads a partner's 2xx answer into out, an osdm type, with
// the implementation behind encoding/json/v2. Against encoding/json it is
// strict where a partner's answer could be read two ways: member names
// match exactly as the OSDM spec writes them ("OfferId" is not
// "offerId"), an object may not repeat a name, strings must be valid
// UTF-8, times must be RFC 3339 as written (no comma before a fraction,
// no zone offset of 24 hours); nesting is bounded (10 000 levels). Members the osdm types do not
// have are skipped, as OSDM lets a partner add its own.
//
// Each string read is a copy of its own: what the converter puts in a
// legacy reply (an offerId, a currency) lives on in the reply cache and
// keeps no more of the partner's answer alive than that.
func decodeAnswer(body []byte, out any) error {
	return json.Unmarshal(body, out)
}
