package legacy

// MinorUnit is the number of decimals of currency's minor unit (ISO
// 4217): 2 (the cent) but for the currencies that have none (0: the yen,
// JPY, and the like), a thousandth (3: the fils of KWD, BHD...) or a
// ten-thousandth (4: CLF, UYW). What a legacy system rounds its amounts
// to, and writes them with.
func MinorUnit(currency string) int {
	switch currency {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		return 0
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return 3
	case "CLF", "UYW":
		return 4
	}
	return 2
}
