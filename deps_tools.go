//go:build tools

// Temporary: pins the dependencies the packages under construction import,
// so that go.sum is complete while they are written. Removed once every one
// of them is imported by real code.
package caddyosdm

import (
	_ "github.com/caddyserver/caddy/v2/caddytest"
	_ "github.com/caddyserver/caddy/v2/cmd"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/getkin/kin-openapi/openapi3filter"
	_ "github.com/go-jose/go-jose/v4/jwt"
	_ "github.com/golang-jwt/jwt/v5"
	_ "github.com/google/uuid"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/redis/go-redis/v9"
	_ "go.uber.org/zap"
	_ "go.uber.org/zap/zaptest/observer"
)
