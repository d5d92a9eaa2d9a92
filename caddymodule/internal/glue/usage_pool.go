package glue

import "github.com/caddyserver/caddy/v2"

// Release gives back a configuration's hold on what its Provision took
// from pool under key (caddy.UsagePool.LoadOrNew): the value outlives a
// reload while a configuration still holds it. An empty key is no hold
// (Provision stopped before taking one).
func Release(pool *caddy.UsagePool, key string) error {
	if key == "" {
		return nil
	}
	_, err := pool.Delete(key)
	return err
}
