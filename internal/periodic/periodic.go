// Package periodic runs a function on a ticker until told to stop: the
// background sweep of expired entries that store's bolt engine and
// tokenauth's memory replay store each run.
package periodic

import "time"

// Run calls f every interval, the first time one interval after it is
// called, until stop is closed; then it returns, once a call of f under
// way has returned (a tick already due then may still be served). Calls
// never overlap: ticks that come while f runs are dropped, as
// time.Ticker drops them for a slow receiver.
func Run(stop <-chan struct{}, interval time.Duration, f func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			f()
		}
	}
}
