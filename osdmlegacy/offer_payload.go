package osdmlegacy

import (
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The payload of an offer id (offer_id.go): the compact binary encoding
// of an offerRecord, version 1, without its ID and Partner. Fields that
// can be derived from others (the leg, offer part and product ids, the
// OSDM price) are left out and flagged as derived.

// payload flags: which fields follow in the payload and which are derived.
const (
	flagLegDerived   = 1 << iota // LegID is TripID + "-leg-1"
	flagPartsDerived             // PartID and ProductID are offerPartIDs'
	flagPriceDerived             // OSDMPrice is osdmPrice(Price)
	flagAvailable                // AvailablePlaces follows
)

// offerPartIDs are the ids of an offer's reservation offer part and
// product: unique within a search's answer (one offer per trip, class and
// service code) and short, as they live inside the offer id.
func offerPartIDs(tripID string, class, service int) (part, product string) {
	cs := strconv.Itoa(class) + strconv.Itoa(service)
	return tripID + "-res-" + cs, tripID + "-product-" + cs
}

// partIDsDerived reports whether rec's part and product ids are
// offerPartIDs', without making them.
func partIDsDerived(rec *offerRecord) bool {
	if rec.TravelClass < 0 || rec.TravelClass > 9 || rec.ServiceCode < 0 || rec.ServiceCode > 9 {
		part, product := offerPartIDs(rec.TripID, rec.TravelClass, rec.ServiceCode)
		return rec.PartID == part && rec.ProductID == product
	}
	cs := string([]byte{byte('0' + rec.TravelClass), byte('0' + rec.ServiceCode)})
	return len(rec.PartID) == len(rec.TripID)+5+2 && strings.HasPrefix(rec.PartID, rec.TripID) &&
		rec.PartID[len(rec.TripID):] == "-res-"+cs &&
		len(rec.ProductID) == len(rec.TripID)+9+2 && strings.HasPrefix(rec.ProductID, rec.TripID) &&
		rec.ProductID[len(rec.TripID):] == "-product-"+cs
}

// offerPassengerTypes are the passenger types written as one byte, in a
// frozen order (version 1); others are written as text.
var offerPassengerTypes = []osdm.PassengerType{
	"ADULT", "CHILD", "YOUTH", "SENIOR", "YOUNG_CHILD", "FAMILY_CHILD", "PRM", "WHEELCHAIR", "PERSON", "DOG", "BICYCLE",
}

// appendOfferPayload appends the payload of rec (version 1) to b.
func appendOfferPayload(b, nonce []byte, rec *offerRecord) []byte {
	flags := uint64(0)
	if rec.LegID == rec.TripID+"-leg-1" {
		flags |= flagLegDerived
	}
	if partIDsDerived(rec) {
		flags |= flagPartsDerived
	}
	if p, err := osdmPrice(rec.Price); err == nil && samePrice(p, rec.OSDMPrice) {
		flags |= flagPriceDerived
	}
	if rec.AvailablePlaces != nil {
		flags |= flagAvailable
	}
	b = append(b, nonce...)
	b = binary.AppendUvarint(b, flags)
	b = appendNum(b, rec.Train)
	b = appendDate(b, rec.ServiceDate)
	b = appendNum(b, rec.Origin)
	b = appendNum(b, rec.Destination)
	b = appendStr(b, rec.OriginName)
	b = appendStr(b, rec.DestinationName)
	b = appendTime(b, rec.CreatedOn, time.Time{})
	b = appendTime(b, rec.ExpiresAt, rec.CreatedOn)
	b = appendTime(b, rec.Departure, rec.CreatedOn)
	b = appendTime(b, rec.Arrival, rec.Departure)
	b = appendClock(b, rec.DepartureClock)
	b = appendNum(b, rec.Carrier)
	b = binary.AppendVarint(b, int64(rec.TravelClass))
	b = binary.AppendVarint(b, int64(rec.ServiceCode))
	b = appendStr(b, rec.ServiceLevel)
	b = binary.AppendUvarint(b, uint64(len(rec.Passengers)))
	for i := range rec.Passengers {
		p := &rec.Passengers[i]
		b = appendStr(b, p.Ref)
		b = appendPassengerType(b, p.Type)
		if p.Age == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, 1)
			b = binary.AppendVarint(b, int64(*p.Age))
		}
		b = appendDate(b, p.DateOfBirth)
		b = binary.AppendVarint(b, int64(p.Tariff))
	}
	b = appendStr(b, rec.Price.Amount)
	b = appendStr(b, rec.Price.Currency)
	if flags&flagPriceDerived == 0 {
		b = appendStr(b, rec.OSDMPrice.Currency)
		b = binary.AppendVarint(b, rec.OSDMPrice.Amount)
		if rec.OSDMPrice.Scale == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, 1)
			b = binary.AppendVarint(b, int64(*rec.OSDMPrice.Scale))
		}
	}
	if flags&flagAvailable != 0 {
		b = binary.AppendVarint(b, int64(*rec.AvailablePlaces))
	}
	b = appendStr(b, rec.LegacyOfferRef)
	b = appendStr(b, rec.TripID)
	if flags&flagLegDerived == 0 {
		b = appendStr(b, rec.LegID)
	}
	if flags&flagPartsDerived == 0 {
		b = appendStr(b, rec.PartID)
		b = appendStr(b, rec.ProductID)
	}
	return b
}

// decodeOfferPayload reads a payload of version 1 (after the version
// byte), whose nonce is nonceLen bytes; false for any malformed or
// trailing byte.
func decodeOfferPayload(b []byte, nonceLen int) (*offerRecord, bool) {
	d := &payloadReader{b: b}
	rec := &offerRecord{}
	d.skip(nonceLen)
	flags := d.uvarint()
	rec.Train = d.num()
	rec.ServiceDate = d.date()
	rec.Origin = d.num()
	rec.Destination = d.num()
	rec.OriginName = d.str()
	rec.DestinationName = d.str()
	rec.CreatedOn = d.time(time.Time{})
	rec.ExpiresAt = d.time(rec.CreatedOn)
	rec.Departure = d.time(rec.CreatedOn)
	rec.Arrival = d.time(rec.Departure)
	rec.DepartureClock = d.clock()
	rec.Carrier = d.num()
	rec.TravelClass = d.int()
	rec.ServiceCode = d.int()
	rec.ServiceLevel = d.str()
	n := d.uvarint()
	if n > uint64(len(d.b)) { // each passenger takes several bytes
		return nil, false
	}
	if n > 0 {
		rec.Passengers = make([]offerPassenger, n)
	}
	for i := range rec.Passengers {
		p := &rec.Passengers[i]
		p.Ref = d.str()
		p.Type = d.passengerType()
		if d.uvarint() == 1 {
			age := d.int()
			p.Age = &age
		}
		p.DateOfBirth = d.date()
		p.Tariff = d.int()
	}
	rec.Price.Amount = d.str()
	rec.Price.Currency = d.str()
	if flags&flagPriceDerived != 0 {
		p, err := osdmPrice(rec.Price)
		if err != nil {
			return nil, false
		}
		rec.OSDMPrice = p
	} else {
		rec.OSDMPrice.Currency = d.str()
		rec.OSDMPrice.Amount = d.varint()
		if d.uvarint() == 1 {
			scale := d.int()
			rec.OSDMPrice.Scale = &scale
		}
	}
	if flags&flagAvailable != 0 {
		n := d.int()
		rec.AvailablePlaces = &n
	}
	rec.LegacyOfferRef = d.str()
	rec.TripID = d.str()
	if flags&flagLegDerived != 0 {
		rec.LegID = rec.TripID + "-leg-1"
	} else {
		rec.LegID = d.str()
	}
	if flags&flagPartsDerived != 0 {
		rec.PartID, rec.ProductID = offerPartIDs(rec.TripID, rec.TravelClass, rec.ServiceCode)
	} else {
		rec.PartID = d.str()
		rec.ProductID = d.str()
	}
	if d.bad || len(d.b) != 0 || flags >= flagAvailable<<1 {
		return nil, false
	}
	return rec, true
}

func samePrice(a, b osdm.Price) bool {
	return a.Currency == b.Currency && a.Amount == b.Amount && a.EffectiveScale() == b.EffectiveScale() &&
		(a.Scale == nil) == (b.Scale == nil)
}

// Text fields: a length and the bytes. Fields that are usually numbers
// (train, UIC codes, RICS codes), dates and clocks are written as one
// number when they have the canonical form, with the low bit set;
// otherwise as text (length shifted left by one).

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s))<<1)
	return append(b, s...)
}

// appendNum writes a canonical decimal (no sign, no leading zero, at most
// 18 digits) as a number, anything else as text.
func appendNum(b []byte, s string) []byte {
	if len(s) == 0 || len(s) > 18 || len(s) > 1 && s[0] == '0' || !allDigits(s) {
		return appendText(b, s)
	}
	v, _ := strconv.ParseUint(s, 10, 64)
	return binary.AppendUvarint(b, v<<1|1)
}

// appendDate writes "YYYY-MM-DD" (a real date from 1970 on) as a day
// count.
func appendDate(b []byte, s string) []byte {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !allDigits(s[:4]) || !allDigits(s[5:7]) || !allDigits(s[8:]) {
		return appendText(b, s)
	}
	y, m, d := atoi(s[:4]), atoi(s[5:7]), atoi(s[8:])
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if ty, tm, td := t.Date(); ty != y || int(tm) != m || td != d || y < 1970 {
		return appendText(b, s) // 2026-02-30 is no date
	}
	return binary.AppendUvarint(b, uint64(t.Unix()/86400)<<1|1)
}

// appendClock writes "HH:MM" as minutes of the day.
func appendClock(b []byte, s string) []byte {
	if len(s) != 5 || s[2] != ':' || !allDigits(s[:2]) || !allDigits(s[3:]) || atoi(s[:2]) > 23 || atoi(s[3:]) > 59 {
		return appendText(b, s)
	}
	return binary.AppendUvarint(b, uint64(atoi(s[:2])*60+atoi(s[3:]))<<1|1)
}

// atoi reads a short run of ASCII digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func appendPassengerType(b []byte, t osdm.PassengerType) []byte {
	for i, known := range offerPassengerTypes {
		if t == known {
			return binary.AppendUvarint(b, uint64(i)<<1|1)
		}
	}
	return appendText(b, string(t))
}

// Time zones of appendTime: the zero time (nothing follows), UTC, the
// same offset as the reference time, another offset (follows).
const (
	zoneZero = iota
	zoneUTC
	zoneSameAsRef
	zoneOffset
)

// appendTime writes t as seconds after ref (ref's zero is the Unix
// epoch), its nanoseconds and its zone's offset.
func appendTime(b []byte, t, ref time.Time) []byte {
	if t.IsZero() {
		return binary.AppendUvarint(b, zoneZero)
	}
	_, off := t.Zone()
	_, refOff := ref.Zone()
	zone := uint64(zoneOffset)
	switch {
	case !ref.IsZero() && off == refOff:
		zone = zoneSameAsRef
	case off == 0:
		zone = zoneUTC
	}
	b = binary.AppendUvarint(b, uint64(t.Nanosecond())<<2|zone)
	refSec := int64(0)
	if !ref.IsZero() {
		refSec = ref.Unix()
	}
	b = binary.AppendVarint(b, t.Unix()-refSec)
	if zone == zoneOffset {
		b = binary.AppendVarint(b, int64(off))
	}
	return b
}

// payloadReader reads a payload; a read past its end or a value out of
// range sets bad and yields zero values from then on.
type payloadReader struct {
	b   []byte
	bad bool
}

func (d *payloadReader) skip(n int) {
	if d.bad || len(d.b) < n {
		d.bad = true
		return
	}
	d.b = d.b[n:]
}

func (d *payloadReader) uvarint() uint64 {
	if d.bad {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

// varint reads what binary.AppendVarint wrote: a uvarint holding the
// value zig-zag encoded, decoded as binary.Varint does.
func (d *payloadReader) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// int reads a varint that must fit an int32.
func (d *payloadReader) int() int {
	v := d.varint()
	if v < -1<<31 || v > 1<<31-1 {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *payloadReader) bytes(n uint64) string {
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *payloadReader) str() string { return d.bytes(d.uvarint()) }

// tagged reads a number-or-text field: the number (ok) or the text.
func (d *payloadReader) tagged() (num uint64, text string, isNum bool) {
	h := d.uvarint()
	if h&1 == 1 {
		return h >> 1, "", true
	}
	return 0, d.bytes(h >> 1), false
}

func (d *payloadReader) num() string {
	v, s, isNum := d.tagged()
	if isNum {
		return strconv.FormatUint(v, 10)
	}
	return s
}

func (d *payloadReader) date() string {
	v, s, isNum := d.tagged()
	if !isNum {
		return s
	}
	if v > 1<<22 { // beyond year 11000
		d.bad = true
		return ""
	}
	return time.Unix(int64(v)*86400, 0).UTC().Format(time.DateOnly)
}

func (d *payloadReader) clock() string {
	v, s, isNum := d.tagged()
	if !isNum {
		return s
	}
	if v >= 24*60 {
		d.bad = true
		return ""
	}
	return time.Date(2000, 1, 1, int(v/60), int(v%60), 0, 0, time.UTC).Format("15:04")
}

func (d *payloadReader) passengerType() osdm.PassengerType {
	v, s, isNum := d.tagged()
	if !isNum {
		return osdm.PassengerType(s)
	}
	if v >= uint64(len(offerPassengerTypes)) {
		d.bad = true
		return ""
	}
	return offerPassengerTypes[v]
}

func (d *payloadReader) time(ref time.Time) time.Time {
	h := d.uvarint()
	zone, nanos := h&3, h>>2
	if zone == zoneZero {
		if nanos != 0 {
			d.bad = true
		}
		return time.Time{}
	}
	sec := d.varint()
	if !ref.IsZero() {
		sec += ref.Unix()
	}
	if nanos >= 1e9 || sec < -1<<40 || sec > 1<<40 {
		d.bad = true
		return time.Time{}
	}
	t := time.Unix(sec, int64(nanos))
	switch zone {
	case zoneUTC:
		return t.UTC()
	case zoneSameAsRef:
		if ref.IsZero() {
			d.bad = true
			return time.Time{}
		}
		return t.In(ref.Location())
	}
	off := d.varint()
	if off <= -24*3600 || off >= 24*3600 {
		d.bad = true
		return time.Time{}
	}
	return t.In(time.FixedZone("", int(off)))
}
