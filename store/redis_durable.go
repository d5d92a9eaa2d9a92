package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ErrVolatile is wrapped by CheckDurable's error for a Redis that could
// lose or evict what the store writes.
var ErrVolatile = errors.New("store: redis could lose bookings")

// CheckDurable reports whether the Redis behind s keeps what it is given:
// it must persist (an append-only file or RDB snapshots: without either a
// restart loses every key) and must not evict keys (any maxmemory-policy
// but noeviction drops keys when memory is full, bookings among them).
// Every master of a Cluster is checked; a Sentinel set's current master.
// A Redis that refuses CONFIG GET is read from INFO instead; one whose
// persistence cannot be read either way fails the check, with the reason.
// The error wraps ErrVolatile and says what to change.
func (s *Redis) CheckDurable(ctx context.Context) error {
	check := func(ctx context.Context, c redis.Cmdable, node string) error {
		if reason, err := volatileReason(ctx, c); err != nil {
			return fmt.Errorf("store: redis %s: reading its persistence settings: %w", node, err)
		} else if reason != "" {
			return fmt.Errorf("%w: redis %s %s", ErrVolatile, node, reason)
		}
		return nil
	}
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			return check(ctx, c, c.Options().Addr)
		})
	}
	node := ""
	if c, ok := s.client.(*redis.Client); ok {
		node = c.Options().Addr
	}
	if node == "" || node == "FailoverClient" {
		node = "(the Sentinel set's current master)"
	}
	return check(ctx, s.client, node)
}

// volatileReason is why the Redis c talks to could lose keys, or "" if it
// keeps them.
func volatileReason(ctx context.Context, c redis.Cmdable) (string, error) {
	aof, save, policy, err := persistenceConfig(ctx, c)
	if err != nil {
		return "", err
	}
	var reasons []string
	if aof != "yes" && strings.TrimSpace(save) == "" {
		reasons = append(reasons, `does not persist (appendonly no, save ""): a restart loses every booking it holds; turn on appendonly yes or RDB snapshots (save)`)
	}
	if policy != "noeviction" {
		reasons = append(reasons, fmt.Sprintf("evicts keys (maxmemory-policy %s): a full Redis drops bookings; set maxmemory-policy noeviction", policy))
	}
	return strings.Join(reasons, "; and "), nil
}

// persistenceConfig reads appendonly, save and maxmemory-policy, with
// CONFIG GET or, where CONFIG is refused (managed Redis often renames it),
// from INFO, which shows the policy and whether AOF is on but not the RDB
// save points: those are then taken as none.
func persistenceConfig(ctx context.Context, c redis.Cmdable) (aof, save, policy string, err error) {
	cfg, cerr := c.ConfigGet(ctx, "*").Result()
	if cerr == nil {
		aof, aok := cfg["appendonly"]
		save, sok := cfg["save"]
		policy, pok := cfg["maxmemory-policy"]
		if aok && sok && pok {
			return aof, save, policy, nil
		}
	}
	info, ierr := c.Info(ctx, "persistence", "memory").Result()
	if ierr != nil {
		if cerr != nil {
			return "", "", "", fmt.Errorf("CONFIG GET: %v; INFO: %w", cerr, ierr)
		}
		return "", "", "", fmt.Errorf("INFO: %w", ierr)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			fields[k] = v
		}
	}
	policy, ok := fields["maxmemory_policy"]
	if !ok {
		return "", "", "", errors.New("neither CONFIG GET nor INFO shows maxmemory-policy")
	}
	aof = "no"
	if fields["aof_enabled"] == "1" {
		aof = "yes"
	}
	return aof, "", policy, nil
}
