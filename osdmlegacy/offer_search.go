package osdmlegacy

import (
	"context"
	"time"
)

// searchOffers answers POST /offers (DESIGN.md section 7): the request
// read strictly and held to the restrictions, its trains found, one legacy
// message per train, class and service code sent (at most concurrency at
// once), and the replies turned into trips of one leg and reservation
// offers, each id carrying its offer so that POST /bookings can book it.
func (f *Facade) searchOffers(ctx context.Context, c *call) *Answer {
	q, p := readOfferRequest(c.body)
	if p != nil {
		return f.problem(c, p)
	}
	cands, p := f.candidates(q)
	if p != nil {
		return f.problem(c, p)
	}
	if cands, p = f.inSaleWindow(q, cands, c.now); p != nil {
		return f.problem(c, p)
	}
	travel := cands[0].run.ServiceDate
	day, _ := time.Parse(time.DateOnly, travel)
	pax := make([]OfferPassenger, 0, len(q.passengers))
	for _, pa := range q.passengers {
		op, p := f.tariffOf(pa, day)
		if p != nil {
			return f.problem(c, p)
		}
		pax = append(pax, op)
	}
	probes := f.plan(cands, q.classes, f.cfg.ServiceCodes, tariffCounts(pax), c.now)
	c.answer.FanOut = len(probes)
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
	f.fanOut(ctx, c.send, probes)
	return f.answer(c, q, probes, pax, signer)
}
