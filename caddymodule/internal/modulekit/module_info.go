package modulekit

import "github.com/caddyserver/caddy/v2"

// Module is a module type's pointer: what caddy.ModuleInfo.New returns.
type Module[T any] interface {
	*T
	caddy.Module
}

// ModuleInfo is the Caddy module information of the modules of type T
// with the given ID: New returns a new, zero *T.
func ModuleInfo[T any, PT Module[T]](id caddy.ModuleID) caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: id, New: func() caddy.Module { return PT(new(T)) }}
}
