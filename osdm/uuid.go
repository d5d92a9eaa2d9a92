package osdm

// ValidUUID reports whether s is a UUID in its canonical 8-4-4-4-12 hex
// form, what the spec's `format: uuid` means (the Idempotency-Key header,
// for one). uuid.Validate of google/uuid also takes the urn:uuid:, braced
// and dashless forms, which the spec's format does not.
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
