package modulekit

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// Handler is a handler module that reads itself from a Caddyfile: the
// pointer type of T. As RegisterHandler's constraint it is the module's
// interface guard for both: a module missing one does not compile.
type Handler[T any] interface {
	*T
	caddyhttp.MiddlewareHandler
	caddyfile.Unmarshaler
}

// RegisterHandler registers the Caddyfile handler directive name: a new
// T set up by its UnmarshalCaddyfile.
func RegisterHandler[T any, PT Handler[T]](name string) {
	RegisterHandlerThen[T, PT](name, nil)
}

// RegisterHandlerThen is RegisterHandler with then, when not nil, called
// once the handler is read, with the helper of its block: for what the
// directives of one block tell each other at adapt time.
func RegisterHandlerThen[T any, PT Handler[T]](name string, then func(h httpcaddyfile.Helper, m PT) error) {
	httpcaddyfile.RegisterHandlerDirective(name, func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		m := PT(new(T))
		if err := m.UnmarshalCaddyfile(h.Dispenser); err != nil {
			return nil, err
		}
		if then != nil {
			if err := then(h, m); err != nil {
				return nil, err
			}
		}
		return m, nil
	})
}
