package command

import (
	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

// runE is the RunE of a command whose flags are bound to its options:
// run's error is reported as Caddy reports any command's, with exit
// status 1.
func runE(run func() error) func(*cobra.Command, []string) error {
	return caddycmd.WrapCommandFuncForCobra(func(caddycmd.Flags) (int, error) {
		if err := run(); err != nil {
			return caddy.ExitCodeFailedStartup, err
		}
		return 0, nil
	})
}
