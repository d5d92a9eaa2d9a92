package glue

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// RegisterOrReuse registers c on reg, or returns the collector of the same
// description already there: a handler appears once per route, and a
// reload registers its metrics again on the same registry.
func RegisterOrReuse[C prometheus.Collector](reg *prometheus.Registry, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, err
	}
	return c, nil
}
