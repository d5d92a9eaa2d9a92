package osdmlegacy

import (
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// BodyTimeout is the answer to a call whose body did not arrive
// completely within Config.Timeout (the glue reads it under that
// deadline): 408 REQUEST_TIMEOUT, nothing sent to the legacy system, and
// the connection closed. A client that dribbles its body, or stalls,
// holds no connection longer than a call may take.
func (f *Facade) BodyTimeout(method, path string) *Answer {
	op := "unknown"
	if m := f.router.Match(method, path); m.Route != nil {
		op = m.Route.Op.String()
	}
	a := problemAnswer(osdm.NewProblem(http.StatusRequestTimeout, osdm.CodeRequestTimeout,
		"the request body did not arrive completely within "+f.cfg.Timeout.String()+"; send the request again"))
	a.Header.Set("Connection", "close")
	a.Operation = op
	a.Outcome = trimProblemPrefix(osdm.CodeRequestTimeout)
	return a
}
