package harness

import (
	"context"

	"github.com/caddyserver/caddy/v2"
)

// Module is a module that provisions and cleans up.
type Module interface {
	caddy.Provisioner
	caddy.CleanerUpper
}

// TryProvision provisions m in a context of its own and returns
// Provision's error, for settings that must be refused. m is cleaned up
// after, as Caddy cleans up a module whether or not it provisioned.
func TryProvision(m Module) error {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	err := m.Provision(ctx)
	_ = m.Cleanup()
	return err
}
