package osdmlegacy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// legacyPrice turns a legacy price ("49.90" EUR) into an OSDM one (4990,
// scale 2), at least scale 2 so a fee in basis points stays exact to the
// cent. A nil price is the zero Price (no currency): the caller falls back.
func legacyPrice(p *legacy.Price) (osdm.Price, error) {
	if p == nil {
		return osdm.Price{}, nil
	}
	return decimalPrice(p.Amount, p.Currency)
}

// decimalPrice parses a non-negative decimal amount of currency.
func decimalPrice(amount, currency string) (osdm.Price, error) {
	whole, frac, _ := strings.Cut(amount, ".")
	if whole == "" || len(whole) > 15 || len(frac) > 6 || !allDigits(whole) || !allDigits(frac) {
		return osdm.Price{}, fmt.Errorf("price %q is not a decimal amount", amount)
	}
	scale := len(frac)
	if scale < osdm.DefaultScale {
		frac += strings.Repeat("0", osdm.DefaultScale-scale)
		scale = osdm.DefaultScale
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return osdm.Price{}, fmt.Errorf("price %q: %w", amount, err)
	}
	return osdm.NewPrice(n, scale, currency), nil
}

// rescale returns p's amount at scale (at least p's own), exactly.
func rescale(p osdm.Price, scale int) int64 {
	a := p.Amount
	for s := p.EffectiveScale(); s < scale; s++ {
		a *= 10
	}
	return a
}

// refundQuote is the fee and refundable amount of refunding price: no fee
// with an overrule code, else the refund_fee (a share, rounded half up to
// the currency's minor unit, or a fixed amount in the price's currency),
// never more than the price.
func refundQuote(fee Fee, price osdm.Price, overrule bool) (feeP, refundable osdm.Price, err error) {
	scale := price.EffectiveScale()
	var f int64
	switch {
	case overrule:
	case fee.Amount != "":
		if fee.Currency != price.Currency {
			return feeP, refundable, fmt.Errorf("the refund fee is in %s and the booking in %s", fee.Currency, price.Currency)
		}
		fp, err := decimalPrice(fee.Amount, fee.Currency)
		if err != nil {
			return feeP, refundable, err
		}
		if fp.EffectiveScale() > scale {
			scale = fp.EffectiveScale()
		}
		f = rescale(fp, scale)
	default:
		f = feeShare(price.Amount, fee.BasisPoints, minorStep(price))
	}
	total := rescale(price, scale)
	if f > total {
		f = total
	}
	return osdm.NewPrice(f, scale, price.Currency), osdm.NewPrice(total-f, scale, price.Currency), nil
}

// partRefundQuote is the fee and refundable amount of cancelling places
// worth price after places worth base were cancelled with the fee before:
// a percentage is rounded on the running total (the fee of all the
// cancellations so far, rounded half up, less the fees already kept), so
// that the partial refunds of a booking add up, to the cent, to its whole
// refund. A fixed fee or an overrule code is as refundQuote.
func partRefundQuote(fee Fee, base, price osdm.Price, overrule bool) (feeP, refundable osdm.Price, err error) {
	if overrule || fee.Amount != "" || base.Amount == 0 {
		return refundQuote(fee, price, overrule)
	}
	sc := max(base.EffectiveScale(), price.EffectiveScale())
	b, p := rescale(base, sc), rescale(price, sc)
	step := minorStep(osdm.NewPrice(0, sc, price.Currency))
	round := func(x int64) int64 { return feeShare(x, fee.BasisPoints, step) }
	f := min(round(b+p)-round(b), p)
	return osdm.NewPrice(f, sc, price.Currency), osdm.NewPrice(p-f, sc, price.Currency), nil
}

// feeShare is bp basis points of amount, rounded half up to a multiple of
// step (both in the amount's unit): the percentage fee the legacy system
// keeps, to its currency's minor unit.
func feeShare(amount int64, bp int, step int64) int64 {
	return (amount*int64(bp) + 5000*step) / (10000 * step) * step
}

// minorStep is the currency's minor unit in units of p's scale: 1 for
// the cent of an amount at scale 2, 100 for the yen (no minor unit) of an
// amount at scale 2, 1 for an amount given with fewer decimals than its
// currency has (the legacy system's own precision).
func minorStep(p osdm.Price) int64 {
	step := int64(1)
	for s := p.EffectiveScale(); s > legacy.MinorUnit(p.Currency); s-- {
		step *= 10
	}
	return step
}

// equalAmount says whether a and b are the same amount of the same
// currency, whatever their scales.
func equalAmount(a, b osdm.Price) bool {
	if a.Currency != b.Currency {
		return false
	}
	sc := max(a.EffectiveScale(), b.EffectiveScale())
	return rescale(a, sc) == rescale(b, sc)
}

// priceText is p for a problem text: "1.24 EUR".
func priceText(p osdm.Price) string {
	d, err := p.Decimal()
	if err != nil {
		return "?"
	}
	return d + " " + p.Currency
}

// bookedAt is q with the new journey at price, what the legacy system
// booked it at (its BookingReplies), which may differ from the
// AvailabilityReply the offer was quoted from: the difference moves by
// as much, the fee (the old booking's) stays. A price the legacy system
// did not give, or gave in another currency than the quote's, leaves q as
// it was.
func (q exchangeQuote) bookedAt(price osdm.Price) exchangeQuote {
	if price.Currency == "" || price.Currency != q.ExchangePrice.Currency || equalAmount(price, q.ExchangePrice) {
		return q
	}
	sc := max(price.EffectiveScale(), q.ExchangePrice.EffectiveScale(), q.Fee.EffectiveScale())
	var net int64
	switch {
	case q.ToPay != nil:
		sc = max(sc, q.ToPay.EffectiveScale())
		net = rescale(*q.ToPay, sc)
	case q.Refundable != nil:
		sc = max(sc, q.Refundable.EffectiveScale())
		net = -rescale(*q.Refundable, sc)
	}
	net += rescale(price, sc) - rescale(q.ExchangePrice, sc)
	q.ExchangePrice = price
	q.setNet(net, sc, price.Currency)
	return q
}

// setNet states what the consumer pays (net >= 0) or is refunded (net <
// 0) for the exchange, net being an amount at scale sc in currency.
func (q *exchangeQuote) setNet(net int64, sc int, currency string) {
	q.ToPay, q.Refundable = nil, nil
	if net >= 0 {
		p := osdm.NewPrice(net, sc, currency)
		q.ToPay = &p
	} else {
		p := osdm.NewPrice(-net, sc, currency)
		q.Refundable = &p
	}
}
