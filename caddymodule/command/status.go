package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/app"
	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "osdm-status",
		Usage: "[partners|pending|stores|booking <ref>|settle] [--address <admin>] [--config <file> [--adapter <name>]] [--json]",
		Short: "Shows the osdm app's partners, pending settlement, stores and bookings, from the admin API",
		Long: `
Asks a running Caddy's admin API (admin.api.osdm) and prints, as tables:

	partners        each partner's access token (obtained, expires, login
	                failures; never the token) and calls (in flight, last
	                partner failure)
	pending         what settlement still has to do, oldest first
	stores          each store's engine, whether it is open, and a check
	                made now (reachable; a Redis that persists)
	booking <ref>   one booking's record in either direction, by its OSDM
	                booking id, legacy BookingRef or messageId (names masked)
	settle          runs one settlement pass now and says what it did

With no argument: partners, pending and stores. --json prints the admin
API's answers as they are, for scripts. The admin address is --address,
else the one of --config, else Caddy's default (localhost:2019), as for
caddy reload. It exits 1 when the admin API cannot be reached or refuses,
and, with stores, when a store's check fails.`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("address", "", "the admin API's address")
			cmd.Flags().String("config", "", "configuration file to read the admin address from")
			cmd.Flags().String("adapter", "", "name of the config adapter of --config")
			cmd.Flags().Bool("json", false, "print the admin API's JSON answers")
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdOSDMStatus)
		},
	})
}

// StatusOptions are caddy osdm-status's arguments: the admin address, the
// views asked for (partners, pending, stores, booking, settle) and Ref,
// the booking's reference, and JSON output.
type StatusOptions struct {
	Address string
	Views   []string
	Ref     string
	JSON    bool
}

func cmdOSDMStatus(fl caddycmd.Flags) (int, error) {
	addr, err := caddycmd.DetermineAdminAPIAddress(fl.String("address"), nil, fl.String("config"), fl.String("adapter"))
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	o := StatusOptions{Address: addr, JSON: fl.Bool("json")}
	args := fl.Args()
	switch {
	case len(args) == 0:
		o.Views = []string{"partners", "pending", "stores"}
	case args[0] == "booking" && len(args) == 2:
		o.Views, o.Ref = []string{"booking"}, args[1]
	case len(args) == 1 && args[0] != "booking":
		o.Views = args
	default:
		return caddy.ExitCodeFailedStartup, fmt.Errorf("usage: caddy osdm-status [partners|pending|stores|booking <ref>|settle]")
	}
	if err := RunStatus(o, os.Stdout); err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	return 0, nil
}

// errStoreCheck is RunStatus's error when a store's check failed.
var errStoreCheck = errors.New("a store's check failed (above)")

// RunStatus asks the admin API at o.Address for o's views and writes
// them to w, as tables or (o.JSON) as the API's JSON.
func RunStatus(o StatusOptions, w io.Writer) error {
	var failed error
	for i, view := range o.Views {
		method, path := http.MethodGet, "/osdm/"+view
		switch view {
		case "partners", "pending", "stores":
		case "settle":
			method = http.MethodPost
		case "booking":
			path = "/osdm/bookings/" + url.PathEscape(o.Ref)
		default:
			return fmt.Errorf("unknown view %q (want partners, pending, stores, booking <ref> or settle)", view)
		}
		body, err := adminCall(o.Address, method, path)
		if err != nil {
			return err
		}
		if o.JSON {
			_, err = w.Write(body)
		} else {
			if i > 0 {
				fmt.Fprintln(w)
			}
			err = printView(w, view, body)
		}
		if errors.Is(err, errStoreCheck) {
			failed = err
		} else if err != nil {
			return err
		}
	}
	return failed
}

// adminCall makes one admin API request and returns the answer's body, or
// the admin API's error.
func adminCall(addr, method, path string) ([]byte, error) {
	resp, err := caddycmd.AdminAPIRequest(addr, method, path, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("asking the admin API at %s: %w", addr, err)
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, 16<<20))
}

// printView writes body, the answer to view, as a table.
func printView(w io.Writer, view string, body []byte) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	switch view {
	case "partners":
		var ps []opstatus.Partner
		if err := json.Unmarshal(body, &ps); err != nil {
			return err
		}
		row("PARTNER", "TOKEN", "OBTAINED", "EXPIRES", "LOGIN FAILURES", "IN FLIGHT", "CALLS", "LAST PARTNER ERROR")
		for _, p := range ps {
			tok, obtained, expires, failures := "-", "-", "-", "-"
			if t := p.Token; t != nil {
				tok, obtained, expires, failures = "expired", ago(t.Obtained), ago(t.Expires), fmt.Sprint(t.Failures)
				switch {
				case t.Valid:
					tok = "valid"
				case t.Obtained.IsZero():
					tok = "none yet"
				}
				if t.LastLoginError != "" {
					failures += " (" + t.LastLoginError + ")"
				}
			}
			inFlight, calls, lastErr := "-", "-", "-"
			if c := p.Calls; c != nil {
				inFlight, calls = fmt.Sprint(c.InFlight), fmt.Sprint(c.Total)
				if c.LastError != "" {
					lastErr = ago(c.LastErrorAt) + ": " + c.LastError
				}
			}
			row(p.Partner, tok, obtained, expires, failures, inFlight, calls, lastErr)
		}
	case "pending":
		var ps []opstatus.Pending
		if err := json.Unmarshal(body, &ps); err != nil {
			return err
		}
		row("AGE", "DIRECTION", "PARTNER", "KIND", "REF", "NEXT ATTEMPT", "DETAIL")
		for _, p := range ps {
			next := "-"
			if !p.NextAttempt.IsZero() {
				next = ago(p.NextAttempt)
			}
			row((time.Duration(p.Age) * time.Second).String(), p.Direction, p.Partner, p.Kind, p.Ref, next, p.Detail)
		}
		if len(ps) == 0 {
			row("(nothing pending)")
		}
	case "stores":
		var ss []app.StoreStatus
		if err := json.Unmarshal(body, &ss); err != nil {
			return err
		}
		row("STORE", "ENGINE", "WHERE", "OPEN", "CHECK")
		var bad bool
		for _, s := range ss {
			name := s.Name
			if name == "" {
				name = "(inline)"
			}
			row(name, s.Engine, s.Where, fmt.Sprint(s.Open), s.Check)
			bad = bad || s.Check != "ok"
		}
		if bad {
			tw.Flush()
			return errStoreCheck
		}
	case "booking":
		var rs []opstatus.Record
		if err := json.Unmarshal(body, &rs); err != nil {
			return err
		}
		for _, r := range rs {
			var refs []string
			for _, k := range slices.Sorted(maps.Keys(r.Refs)) {
				refs = append(refs, k+" "+strings.Join(r.Refs[k], " "))
			}
			line := fmt.Sprintf("%s %s: %s (%s)", r.Direction, r.Partner, r.State, strings.Join(refs, ", "))
			if len(r.Passengers) > 0 {
				line += ", passengers " + strings.Join(r.Passengers, ", ")
			}
			fmt.Fprintln(tw, line)
			for _, s := range r.Steps {
				row("", s.At.UTC().Format(time.RFC3339), s.What, s.Outcome)
			}
		}
	case "settle":
		var s app.Settled
		if err := json.Unmarshal(body, &s); err != nil {
			return err
		}
		row("JOB", "SECONDS")
		for _, r := range s.Ran {
			row(r.Job, fmt.Sprintf("%.3f", r.Seconds))
		}
		fmt.Fprintf(tw, "pending before %d, after %d\n", s.PendingBefore, s.PendingAfter)
		if s.Error != "" {
			fmt.Fprintf(tw, "error: %s\n", s.Error)
		}
	}
	return nil
}

// ago is t relative to now, in whole seconds ("3m20s ago", "in 14m").
func ago(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := time.Until(t).Round(time.Second)
	if d < 0 {
		return (-d).String() + " ago"
	}
	return "in " + d.String()
}
