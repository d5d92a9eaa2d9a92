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
func (f *Facade) searchOffers(ctx context.Context, c *call) *Answer {
	q, p := readOfferRequest(c.body)
	if p != nil {
		return f.problem(c, p)
	}
	ts, p := f.trips(q)
	if p != nil {
		return f.problem(c, p)
	}
	if p = f.inSaleWindowSet(q, ts, c.now); p != nil {
		return f.problem(c, p)
	}
	travel := ts.first().run.ServiceDate
	day, _ := time.Parse(time.DateOnly, travel)
	pax := make([]OfferPassenger, 0, len(q.passengers))
	for _, pa := range q.passengers {
		op, p := f.tariffOf(pa, day)
		if p != nil {
			return f.problem(c, p)
		}
		pax = append(pax, op)
	}
	probes := f.plan(ts.direct, q.classes, f.cfg.ServiceCodes, tariffCounts(pax), c.now)
	legProbes := f.plan(ts.legs, q.classes, f.cfg.ServiceCodes, tariffCounts(pax), c.now)
	c.answer.FanOut = len(probes) + len(legProbes)
	// The key first: without it no offer could be answered, so nothing
	// is sent. The search writes nothing to the store. A store that
	// cannot be read now leaves the key read last (an offer made under a
	// key replaced meanwhile is refused at booking, which reads the
	// store again); with none read yet, nothing can be signed.
	signer, err := f.offerSigner(ctx)
	if err != nil {
		if signer = f.signer.Load(); signer == nil {
			return f.offerKeyFailed(c)
		}
		c.answer.StoreErrors++
	}
	f.fanOut(ctx, c.send, append(probes[:len(probes):len(probes)], legProbes...))
	return f.answer(c, q, probes, pax, signer, ts, legProbes)
}
