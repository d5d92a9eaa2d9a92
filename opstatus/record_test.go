package opstatus_test

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

func TestMaskName(t *testing.T) {
	for in, want := range map[string]string{
		"Anna Müller":     "A*** M*****",
		"  Zoë  ":         "Z**",
		"Δημήτρης Παπάς":  "Δ******* Π****",
		"":                "",
		"O'Neil-Smith Jr": "O*********** J*",
	} {
		if got := opstatus.MaskName(in); got != want {
			t.Errorf("MaskName(%q) = %q, want %q", in, got, want)
		}
	}
}
