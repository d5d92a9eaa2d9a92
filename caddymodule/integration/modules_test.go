// Package integration holds the tests that run modules of several roles
// in one Caddy, and the tests of the example configuration.
package integration

import (
	// Every module and directive, as xcaddy builds them.
	_ "github.com/caddy-osdm/caddy-osdm"
)
