package legacy

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The rules a field can break, as Error.Rule phrases them.
const (
	ruleRequired      = "is required"
	ruleOnce          = "must appear at most once"
	ruleMessageID     = "must be 1..64 characters of A-Z a-z 0-9 . _ : -"
	ruleDateTime      = "must be an RFC 3339 date-time"
	ruleSender        = "must be a reservation system code 1..9999"
	ruleTrainNumber   = "must be 1..5 letters or digits"
	ruleDate          = "must be a calendar date YYYY-MM-DD"
	ruleTime          = "must be a time HH:MM"
	ruleStation       = "must be a 7-digit UIC station code, or urn:uic:stn: and 7 digits"
	ruleSameStation   = "must differ from the departure station"
	ruleRICS          = "must be a 4-digit RICS company code"
	ruleTravelClass   = "must be 1 or 2"
	ruleServiceCode   = "must be 1, 2 or 3"
	ruleServiceLevel  = "must be 1..8 letters or digits"
	ruleTariffs       = "at least one is required"
	ruleTariffCode    = "must be a tariff code 0..9999"
	ruleCount         = "must be 1..9"
	rulePlaces        = "the tariff counts must add up to at most 9 places"
	ruleName          = "must be 1..70 characters, not only white space, without control or bidirectional formatting characters"
	ruleOfferRef      = "must be 1..512 printable ASCII characters without spaces"
	ruleRef           = "must be 1..128 printable ASCII characters without spaces"
	ruleReasonCode    = "must be a reason code 0..9999"
	ruleBool          = "must be true or false"
	ruleInteger       = "must be a non-negative integer"
	ruleAmount        = "must be a non-negative decimal amount such as 49.90"
	ruleCurrency      = "must be an ISO 4217 currency code of 3 capital letters"
	ruleText          = "must be 1..1000 characters without control characters"
	ruleToken         = "must be 1..64 characters of A-Z a-z 0-9 _ . : -"
	ruleIndex         = "must be a passenger index 1..9"
	rulePassengers    = "at least one is required"
	rulePassengerData = "must set at least one of firstName, lastName, dateOfBirth"
)

// maxPlaces is the 918-1 limit of places in one request.
const maxPlaces = 9

func validMessageID(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '.' && c != '_' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// alnum reports whether s is min..max ASCII letters or digits.
func alnum(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// printableASCII reports whether s is 1..max of '!'..'~'.
func printableASCII(s string, max int) bool {
	if len(s) < 1 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// plainText reports whether s is 1..max characters of valid UTF-8 with no
// control characters (XML cannot carry most of them).
func plainText(s string, max int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF {
			return false
		}
	}
	return true
}

// validDate reports whether s is a real calendar date YYYY-MM-DD.
func validDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// validClock reports whether s is HH:MM, 00:00..23:59.
func validClock(s string) bool {
	if len(s) != 5 || s[2] != ':' || !isDigits(s[:2], 2) || !isDigits(s[3:], 2) {
		return false
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	return h < 24 && m < 60
}

// normStation returns the 7-digit form of a UIC station code, or "" if s is
// not one.
func normStation(s string) string {
	s = strings.TrimPrefix(s, "urn:uic:stn:")
	if isDigits(s, 7) {
		return s
	}
	return ""
}

// validAmount reports whether s is a non-negative decimal: 1..15 digits,
// optionally a point and 1..6 digits.
func validAmount(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	if len(whole) < 1 || len(whole) > 15 || !isDigits(whole, len(whole)) {
		return false
	}
	return !dot || len(frac) >= 1 && len(frac) <= 6 && isDigits(frac, len(frac))
}

func validCurrency(s string) bool {
	return len(s) == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'A' && s[2] <= 'Z'
}

// parseDateTime parses an RFC 3339 date-time. The zone is normalised (UTC
// for offset zero, an unnamed fixed zone otherwise) so the value does not
// depend on the machine's local zone and survives a round trip unchanged.
func parseDateTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	_, off := t.Zone()
	if off == 0 {
		return t.UTC(), true
	}
	return t.In(time.FixedZone("", off)), true
}

func formatDateTime(t time.Time) string { return t.Format(time.RFC3339Nano) }

// quoteShort quotes s for an error message, cut to 40 bytes so an error
// never echoes a large input.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
