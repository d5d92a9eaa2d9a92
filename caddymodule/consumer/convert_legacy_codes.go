package consumer

import (
	"fmt"
	"strconv"
)

// TariffMapping is the OSDM passenger a legacy tariff code stands for.
type TariffMapping struct {
	// Type is the OSDM passenger type, e.g. ADULT.
	Type string `json:"type"`
	// Age is the age in years sent with it.
	Age int `json:"age"`
}

// legacyCode reads a tariff or reason code, a JSON object key; the
// converter checks its range.
func legacyCode(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("code %q is not a number", s)
	}
	return n, nil
}
