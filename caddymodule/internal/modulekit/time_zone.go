package modulekit

import (
	"fmt"
	"time"
)

// TimeZone reads the time_zone setting of a module: an IANA zone such as
// Europe/Paris, or UTC. "Local", which Go reads as the zone of the machine
// Caddy runs on, is refused: the same configuration would mean another
// zone on another host.
func TimeZone(name string) (*time.Location, error) {
	if name == "Local" {
		return nil, fmt.Errorf("time_zone %q is the zone of the machine Caddy runs on, not an IANA zone: name it, e.g. Europe/Paris", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time_zone %q: %w", name, err)
	}
	return loc, nil
}
