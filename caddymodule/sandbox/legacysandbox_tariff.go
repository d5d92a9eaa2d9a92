package sandbox

// LegacySandboxTariff is one row of the tariff table.
type LegacySandboxTariff struct {
	// Code is the 918-1 tariff code, 0..9999.
	Code int `json:"code"`
	// Percent is the percentage of the fare it pays, 0..1000.
	Percent int `json:"percent"`
}
