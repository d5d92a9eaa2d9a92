package osdm

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFormatAmount(t *testing.T) {
	cases := []struct {
		amount int64
		scale  int
		want   string
	}{
		{4990, 2, "49.90"},
		{-4990, 2, "-49.90"},
		{0, 2, "0.00"},
		{5, 2, "0.05"},
		{-5, 2, "-0.05"},
		{100, 2, "1.00"},
		{120, 0, "120"},
		{-120, 0, "-120"},
		{0, 0, "0"},
		{7, 3, "0.007"},
		{1234567, 3, "1234.567"},
		{1, 18, "0.000000000000000001"},
		{math.MaxInt32, 2, "21474836.47"},
		{math.MaxInt64, 2, "92233720368547758.07"},
		{math.MinInt64, 2, "-92233720368547758.08"},
		{math.MinInt64, 0, "-9223372036854775808"},
	}
	for _, tc := range cases {
		got, err := FormatAmount(tc.amount, tc.scale)
		if err != nil || got != tc.want {
			t.Errorf("FormatAmount(%d, %d) = %q, %v; want %q", tc.amount, tc.scale, got, err, tc.want)
		}
	}
	for _, scale := range []int{-1, 19, math.MaxInt} {
		if got, err := FormatAmount(1, scale); err == nil {
			t.Errorf("FormatAmount(1, %d) = %q, want an error", scale, got)
		}
	}
}

func TestPriceScaleDefaultsToTwo(t *testing.T) {
	var p Price
	if err := json.Unmarshal([]byte(`{"currency":"EUR","amount":4990}`), &p); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Decimal(); err != nil || got != "49.90" {
		t.Fatalf("Decimal() = %q, %v; want 49.90 (scale omitted means 2)", got, err)
	}
	if err := json.Unmarshal([]byte(`{"currency":"JPY","amount":4990,"scale":0}`), &p); err != nil {
		t.Fatal(err)
	}
	if got, _ := p.Decimal(); got != "4990" || p.Currency != "JPY" {
		t.Fatalf("explicit scale 0: got %q %s", got, p.Currency)
	}
	out, _ := json.Marshal(NewPrice(500, 2, "CHF"))
	if string(out) != `{"currency":"CHF","amount":500,"scale":2}` {
		t.Fatalf("marshal: %s", out)
	}
}
