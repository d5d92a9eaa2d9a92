package osdmlegacy

import (
	"context"
	"time"
)

// searchOffers answers POST /offers: the request
// read strictly and held to the restrictions, its trains found, one legacy
// message per train, class and service code sent (each train once, at
// most concurrency at once), and the replies turned into trips (direct
// trains, journeys with changes) and reservation offers, each id
// carrying its offer so that POST /bookings can book it.
func (o *offers) searchOffers(ctx context.Context, c *call) *Answer {
	q, p := readOfferRequest(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	ts, p := o.trips(q)
	if p != nil {
		return problemAnswer(p)
	}
	if p = o.inSaleWindowSet(q, ts, c.now); p != nil {
		return problemAnswer(p)
	}
	travel := ts.first().run.ServiceDate
	day, _ := time.Parse(time.DateOnly, travel)
	pax := make([]offerPassenger, 0, len(q.passengers))
	for _, pa := range q.passengers {
		op, p := o.tariffOf(pa, day)
		if p != nil {
			return problemAnswer(p)
		}
		pax = append(pax, op)
	}
	probes := o.plan(ts.direct, q.classes, o.cfg.ServiceCodes, tariffCounts(pax), c.now)
	legProbes := o.plan(ts.legs, q.classes, o.cfg.ServiceCodes, tariffCounts(pax), c.now)
	c.answer.FanOut = len(probes) + len(legProbes)
	// The key first: without it no offer could be answered, so nothing
	// is sent. The search writes nothing to the store. A store that
	// cannot be read now leaves the key read last (an offer made under a
	// key replaced meanwhile is refused at booking, which reads the
	// store again); with none read yet, nothing can be signed.
	signer, err := o.offerSigner(ctx)
	if err != nil {
		if signer = o.signer.Load(); signer == nil {
			return o.offerKeyFailed(c, err)
		}
		c.answer.StoreErrors++
	}
	o.fanOut(ctx, c.send, append(probes[:len(probes):len(probes)], legProbes...))
	return o.answer(c, q, probes, pax, signer, ts, legProbes)
}
