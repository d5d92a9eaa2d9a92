package osdmlegacy

import "testing"

// TestBirthDateFitsTariff: a SENIOR offered at tariff 3 (60..150 by the
// default rules) on 2026-12-01 keeps a date of birth that makes them 60
// or more that day, and refuses one that makes them 59, 26, or unborn.
func TestBirthDateFitsTariff(t *testing.T) {
	op := offerPassenger{Ref: "s1", Type: "SENIOR", Tariff: 3}
	for dob, ok := range map[string]bool{
		"":           true,
		"1950-01-01": true,
		"1966-12-01": true, // 60 that very day
		"1966-12-02": false,
		"2000-01-01": false,
		"2027-01-01": false,
	} {
		p := birthDateFits("#/passengerSpecifications/0", dob, op, "2026-12-01", defaultTariffs())
		if (p == nil) != ok {
			t.Errorf("%q: %+v", dob, p)
		}
		if p != nil && (len(p.Pointers) != 1 || p.Pointers[0].RequestPointer != "#/passengerSpecifications/0/dateOfBirth") {
			t.Errorf("%q: %+v", dob, p)
		}
	}
}
