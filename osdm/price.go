package osdm

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultScale is the spec's default for Price.scale: amounts in cents.
const DefaultScale = 2

// Price is an OSDM amount of money: Amount in units of 10^-Scale of Currency
// (4990, scale 2, "EUR" is 49.90 EUR). The spec types amount as int32.
type Price struct {
	// Currency is the ISO 4217 code, e.g. "EUR", "CHF".
	Currency string `json:"currency"`
	// Amount is the integer amount in 10^-Scale units.
	Amount int64 `json:"amount"`
	// Scale is the number of decimal places; nil means DefaultScale.
	Scale *int `json:"scale,omitempty"`
}

// NewPrice returns a Price with an explicit scale.
func NewPrice(amount int64, scale int, currency string) Price {
	return Price{Currency: currency, Amount: amount, Scale: &scale}
}

// EffectiveScale is Scale, or DefaultScale when the partner left it out.
func (p Price) EffectiveScale() int {
	if p.Scale == nil {
		return DefaultScale
	}
	return *p.Scale
}

// Decimal formats the price's amount as a decimal string (FormatAmount with
// the effective scale), e.g. "49.90".
func (p Price) Decimal() (string, error) {
	return FormatAmount(p.Amount, p.EffectiveScale())
}

// maxScale bounds the scale: 18 decimal places already exceed any currency
// and keep a malicious scale from allocating huge strings.
const maxScale = 18

// FormatAmount renders amount·10^-scale as a plain decimal string with
// exactly scale decimal places: (4990, 2) -> "49.90", (-5, 2) -> "-0.05",
// (0, 2) -> "0.00", (120, 0) -> "120". It works on the digits, never on
// floats, so any int64 is exact. A scale below 0 or above 18 is an error.
func FormatAmount(amount int64, scale int) (string, error) {
	if scale < 0 || scale > maxScale {
		return "", fmt.Errorf("price scale %d out of range 0..%d", scale, maxScale)
	}
	neg := amount < 0
	// Digits of |amount| without overflow for math.MinInt64.
	digits := strconv.FormatInt(amount, 10)
	if neg {
		digits = digits[1:]
	}
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits, nil
	}
	return digits, nil
}
