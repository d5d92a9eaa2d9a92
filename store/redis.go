package store

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Store in a Redis shared by several instances. Every key is
// the store's prefix followed by the caller's key; expiry is Redis's own
// (PX), so an expired value is absent for every instance at once.
// PutIfAbsent is one SET NX PX, CompareAndSet and CompareAndDelete one
// Lua script each: all atomic in Redis, whatever the number of instances.
type Redis struct {
	client redis.UniversalClient
	prefix string
	owned  bool // Close closes client
}

// RedisOptions says how OpenRedis reaches a Redis: one server, a Sentinel
// set or a Cluster, as go-redis's UniversalOptions take them.
type RedisOptions struct {
	// Addresses are host:port: one for a server; several for a Cluster
	// (its nodes, any of them) or, with MasterName, a Sentinel set.
	Addresses []string
	// Address is Addresses as one string, comma-separated (an older form;
	// both may be given, their addresses are joined).
	Address string
	// MasterName is the name of the master a Sentinel set monitors: with
	// it, Addresses are the sentinels.
	MasterName string
	// Prefix is put before every key.
	Prefix string
	// Username and Password authenticate, when Redis asks (the servers,
	// not the sentinels; see SentinelUsername).
	Username, Password string
	// SentinelUsername and SentinelPassword authenticate to the sentinels
	// of a Sentinel set, when they ask.
	SentinelUsername, SentinelPassword string
	// TLS, when set, is the TLS configuration of every connection.
	TLS *tls.Config
	// DB is the database number (not for a cluster).
	DB int
	// DialTimeout, ReadTimeout and WriteTimeout bound each connection
	// step (go-redis defaults if 0).
	DialTimeout, ReadTimeout, WriteTimeout time.Duration
	// MaxRetries is how often a failed command is tried again (go-redis's
	// default if 0; -1 for none).
	MaxRetries int
}

// addrs is every address of o, in order.
func (o RedisOptions) addrs() []string {
	addrs := append([]string(nil), o.Addresses...)
	if o.Address != "" {
		for _, a := range strings.Split(o.Address, ",") {
			if a = strings.TrimSpace(a); a != "" {
				addrs = append(addrs, a)
			}
		}
	}
	return addrs
}

// Universal is o as go-redis's UniversalOptions: a Sentinel set's failover
// client when MasterName is set, a Cluster client for several addresses,
// a plain client for one.
func (o RedisOptions) Universal() *redis.UniversalOptions {
	return &redis.UniversalOptions{
		Addrs:            o.addrs(),
		MasterName:       o.MasterName,
		Username:         o.Username,
		Password:         o.Password,
		SentinelUsername: o.SentinelUsername,
		SentinelPassword: o.SentinelPassword,
		TLSConfig:        o.TLS,
		DB:               o.DB,
		DialTimeout:      o.DialTimeout,
		ReadTimeout:      o.ReadTimeout,
		WriteTimeout:     o.WriteTimeout,
		MaxRetries:       o.MaxRetries,
	}
}

// Describe names the Redis o reaches, for logs and errors (no credentials).
func (o RedisOptions) Describe() string {
	addrs := strings.Join(o.addrs(), ",")
	switch {
	case o.MasterName != "":
		return "redis sentinel " + addrs + " master " + o.MasterName
	case len(o.addrs()) > 1:
		return "redis cluster " + addrs
	}
	return "redis " + addrs
}

// OpenRedis connects to Redis and checks it answers a PING within ctx;
// the store owns the client and Close closes it.
func OpenRedis(ctx context.Context, o RedisOptions) (*Redis, error) {
	if len(o.addrs()) == 0 {
		return nil, errors.New("store: redis: no address")
	}
	client := redis.NewUniversalClient(o.Universal())
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("store: %s does not answer PING: %w", o.Describe(), err)
	}
	s := NewRedis(client, o.Prefix)
	s.owned = true
	return s, nil
}

// NewRedis makes a store on a client the caller owns (Close leaves it
// open). Every key is put under prefix.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Get implements Store.
func (s *Redis) Get(ctx context.Context, key string) ([]byte, error) {
	if err := Check(ctx, key); err != nil {
		return nil, err
	}
	v, err := s.client.Get(ctx, s.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: redis GET: %w", err)
	}
	return v, nil
}

// Put implements Store.
func (s *Redis) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := CheckWrite(ctx, key, ttl); err != nil {
		return err
	}
	if err := s.client.Set(ctx, s.prefix+key, value, redisTTL(ttl)).Err(); err != nil {
		return fmt.Errorf("store: redis SET: %w", err)
	}
	return nil
}

// PutIfAbsent implements Store with one SET NX PX.
func (s *Redis) PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if err := CheckWrite(ctx, key, ttl); err != nil {
		return false, err
	}
	ok, err := s.client.SetNX(ctx, s.prefix+key, value, redisTTL(ttl)).Result()
	if err != nil {
		return false, fmt.Errorf("store: redis SET NX: %w", err)
	}
	return ok, nil
}

// casScript replaces KEYS[1] by ARGV[2] (expiring after ARGV[3] ms, never
// if 0) when its value is ARGV[1]; Redis runs a script atomically.
var casScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == false or cur ~= ARGV[1] then
	return 0
end
local px = tonumber(ARGV[3])
if px > 0 then
	redis.call('SET', KEYS[1], ARGV[2], 'PX', px)
else
	redis.call('SET', KEYS[1], ARGV[2])
end
return 1
`)

// CompareAndSet implements Store with one Lua script.
func (s *Redis) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if err := CheckWrite(ctx, key, ttl); err != nil {
		return false, err
	}
	px := int64(0)
	if ttl > 0 {
		px = redisTTL(ttl).Milliseconds()
	}
	n, err := casScript.Run(ctx, s.client, []string{s.prefix + key}, old, value, px).Int()
	if err != nil {
		return false, fmt.Errorf("store: redis compare-and-set script: %w", err)
	}
	return n == 1, nil
}

// Delete implements Store.
func (s *Redis) Delete(ctx context.Context, key string) error {
	if err := Check(ctx, key); err != nil {
		return err
	}
	if err := s.client.Del(ctx, s.prefix+key).Err(); err != nil {
		return fmt.Errorf("store: redis DEL: %w", err)
	}
	return nil
}

// cadScript deletes KEYS[1] when its value is ARGV[1]; Redis runs a
// script atomically. One key, so one slot of a Cluster.
var cadScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0
`)

// CompareAndDelete implements Store with one Lua script.
func (s *Redis) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	if err := Check(ctx, key); err != nil {
		return false, err
	}
	n, err := cadScript.Run(ctx, s.client, []string{s.prefix + key}, old).Int()
	if err != nil {
		return false, fmt.Errorf("store: redis compare-and-delete script: %w", err)
	}
	return n == 1, nil
}

// Scan implements Store: SCAN MATCH over the store's prefix and prefix
// (their glob characters escaped), then the values of each page in one
// pipeline of GETs; a key that expired in between is skipped, and a key
// SCAN returns twice is reported once. On a cluster every master is
// scanned.
func (s *Redis) Scan(ctx context.Context, prefix string, fn func(key string, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	match := globEscape(s.prefix+prefix) + "*"
	seen := make(map[string]struct{})
	scanOne := func(ctx context.Context, c redis.UniversalClient) error {
		var cursor uint64
		for {
			keys, next, err := c.Scan(ctx, cursor, match, 256).Result()
			if err != nil {
				return fmt.Errorf("store: redis SCAN: %w", err)
			}
			if err := s.emit(ctx, keys, seen, fn); err != nil {
				return err
			}
			if next == 0 {
				return nil
			}
			cursor = next
		}
	}
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		// ForEachMaster calls its function on every master at once: it
		// only collects them, and they are scanned one after the other,
		// so fn is never called concurrently and stops at its error.
		var mu sync.Mutex
		var masters []*redis.Client
		if err := cc.ForEachMaster(ctx, func(_ context.Context, c *redis.Client) error {
			mu.Lock()
			masters = append(masters, c)
			mu.Unlock()
			return nil
		}); err != nil {
			return fmt.Errorf("store: redis cluster masters: %w", err)
		}
		for _, c := range masters {
			if err := scanOne(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}
	return scanOne(ctx, s.client)
}

// emit fetches the values of keys and calls fn for each one still there.
func (s *Redis) emit(ctx context.Context, keys []string, seen map[string]struct{}, fn func(string, []byte) error) error {
	var fresh []string
	for _, k := range keys {
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		fresh = append(fresh, k)
	}
	if len(fresh) == 0 {
		return nil
	}
	pipe := s.client.Pipeline()
	gets := make([]*redis.StringCmd, len(fresh))
	for i, k := range fresh {
		gets[i] = pipe.Get(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("store: redis GET after SCAN: %w", err)
	}
	for i, k := range fresh {
		v, err := gets[i].Bytes()
		if errors.Is(err, redis.Nil) {
			continue // expired or deleted since SCAN saw it
		}
		if err != nil {
			return fmt.Errorf("store: redis GET after SCAN: %w", err)
		}
		if err := fn(strings.TrimPrefix(k, s.prefix), v); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the client if OpenRedis made it.
func (s *Redis) Close() error {
	if s.owned {
		return s.client.Close()
	}
	return nil
}

// redisTTL is ttl for SET's PX: 0 stays 0 (no expiry), anything shorter
// than Redis's millisecond becomes one millisecond, not "never".
func redisTTL(ttl time.Duration) time.Duration {
	if ttl > 0 && ttl < time.Millisecond {
		return time.Millisecond
	}
	return ttl
}

// globEscape escapes the characters SCAN MATCH reads as a pattern.
func globEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\', '^', '-':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Interface guard.
var _ Store = (*Redis)(nil)
