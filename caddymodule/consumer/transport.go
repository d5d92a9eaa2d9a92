package consumer

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
)

func init() {
	caddy.RegisterModule(Transport{})
}

// Transport is reverse_proxy's http transport that also sends the tokens
// of osdm_token and osdm_access: the reverse_proxy after either of them
// names it (`transport osdm`). It adds their header to a copy of the
// request inside RoundTrip, after reverse_proxy's debug log has taken its
// copy of the headers, so that no log prints the token (see bearer). A
// request that passed neither handler goes out as with the http
// transport. Every option of the http transport applies (tls, versions,
// timeouts...); it has none of its own.
type Transport struct {
	*reverseproxy.HTTPTransport
}

// CaddyModule returns the Caddy module information.
func (Transport) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.reverse_proxy.transport.osdm",
		New: func() caddy.Module { return &Transport{HTTPTransport: new(reverseproxy.HTTPTransport)} },
	}
}

// Provision sets up the http transport.
func (t *Transport) Provision(ctx caddy.Context) error {
	return t.HTTPTransport.Provision(ctx)
}

// Cleanup closes the http transport's idle connections.
func (t *Transport) Cleanup() error {
	return t.HTTPTransport.Cleanup()
}

// RoundTrip sends the request with the headers of the osdm handlers it
// passed, if any.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.HTTPTransport.RoundTrip(subrequest.WithBearerHeaders(req))
}

// Interface guards: those of the http transport, which reverse_proxy
// looks for.
var (
	_ caddy.Provisioner                                = (*Transport)(nil)
	_ caddy.CleanerUpper                               = (*Transport)(nil)
	_ http.RoundTripper                                = (*Transport)(nil)
	_ reverseproxy.TLSTransport                        = (*Transport)(nil)
	_ reverseproxy.H2CTransport                        = (*Transport)(nil)
	_ reverseproxy.HealthCheckSchemeOverriderTransport = (*Transport)(nil)
	_ reverseproxy.ProxyProtocolTransport              = (*Transport)(nil)
	_ reverseproxy.RequestHeaderOpsTransport           = (*Transport)(nil)
)
