package legacyprovider

// LegacyTariff maps an OSDM passenger type and age range to a legacy
// tariff code.
type LegacyTariff struct {
	// Type is the OSDM passenger type, e.g. ADULT.
	Type string `json:"type"`
	// MinAge and MaxAge bound the age in years, both included.
	MinAge int `json:"min_age"`
	MaxAge int `json:"max_age"`
	// Code is the 918-1 tariff code, 0..9999.
	Code int `json:"code"`
}
