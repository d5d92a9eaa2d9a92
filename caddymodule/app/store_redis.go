package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/store"
)

func init() {
	caddy.RegisterModule(Redis{})
}

// Defaults of Redis.
const (
	defaultRedisPrefix      = "osdm:"
	defaultRedisDialTimeout = 2 * time.Second
)

// Redis is the store engine osdm.stores.redis: a Redis shared by every
// instance, as one server, a Sentinel set or a Cluster (go-redis's
// UniversalOptions). It must keep what it is given: a Redis without
// persistence (no append-only file, no RDB snapshots) or with an
// eviction policy other than noeviction is refused at start, saying why,
// unless AcceptVolatile.
type Redis struct {
	// Addresses are host:port: one for a server; several for a Cluster
	// (any of its nodes) or, with Master, the sentinels of a Sentinel
	// set. A single address may be a redis:// or rediss:// URL (which
	// can carry credentials and a database).
	Addresses []string `json:"addresses,omitempty"`
	// Master is the name of the master the sentinels monitor.
	Master string `json:"master,omitempty"`
	// Prefix is put before every key, so that deployments can share one
	// Redis. Default osdm:.
	Prefix string `json:"prefix,omitempty"`
	// Username and Password authenticate to Redis (placeholders such as
	// {env.OSDM_REDIS_PASSWORD} are replaced). The sentinels take the
	// same unless SentinelPassword is set.
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	// SentinelPassword authenticates to the sentinels, when theirs differs.
	SentinelPassword string `json:"sentinel_password,omitempty"`
	// DB is the database number (not for a Cluster).
	DB int `json:"db,omitempty"`
	// TLS, when present, makes every connection TLS.
	TLS *RedisTLS `json:"tls,omitempty"`
	// AcceptVolatile starts even if Redis could lose keys (no
	// persistence) or evict them: bookings may then be lost.
	AcceptVolatile bool `json:"accept_volatile,omitempty"`
	// Timeout bounds connecting to Redis, and the start's check that it
	// persists. Default 2s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	opts   store.RedisOptions
	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Redis) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[Redis]("osdm.stores.redis")
}

// Provision reads and checks the configuration, then asks Redis whether
// it persists (read only: PING, CONFIG GET, INFO; nothing is written), so
// that `caddy validate` refuses a Redis that a start would refuse. A
// Redis that does not answer now is not an error here: the start waits
// for it.
func (r *Redis) Provision(ctx caddy.Context) error {
	if err := r.provision(ctx); err != nil {
		return err
	}
	return r.checkPersistence(ctx)
}

// checkPersistence refuses a Redis that answers and would lose bookings
// (Check's refusal), and says nothing of one that does not answer yet.
func (r *Redis) checkPersistence(ctx context.Context) error {
	db, err := r.Open()
	if err != nil {
		return err
	}
	defer db.Destruct()
	cctx, cancel := context.WithTimeout(ctx, r.CheckTimeout())
	defer cancel()
	err = r.Check(cctx, db)
	if errors.Is(err, ErrUnreachable) {
		r.logger.Warn("store not reachable now: whether it persists is checked when it answers", zap.String("store", r.Where()), zap.Error(err))
		return nil
	}
	return err
}

// provision reads and checks the configuration; it connects to nothing.
func (r *Redis) provision(ctx caddy.Context) error {
	r.logger = ctx.Logger()
	repl := caddy.NewReplacer()
	if r.Timeout < 0 {
		return fmt.Errorf("store redis timeout %v must be positive", time.Duration(r.Timeout))
	}
	dial := time.Duration(r.Timeout)
	if dial == 0 {
		dial = defaultRedisDialTimeout
	}
	o := store.RedisOptions{
		MasterName: r.Master, Username: repl.ReplaceAll(r.Username, ""), Password: repl.ReplaceAll(r.Password, ""),
		DB: r.DB, DialTimeout: dial, ReadTimeout: time.Second, WriteTimeout: time.Second, MaxRetries: 1,
	}
	if r.SentinelPassword != "" {
		o.SentinelPassword = repl.ReplaceAll(r.SentinelPassword, "")
	} else if r.Master != "" {
		o.SentinelUsername, o.SentinelPassword = o.Username, o.Password
	}
	for _, a := range r.Addresses {
		a = repl.ReplaceAll(a, "")
		if a == "" {
			return errors.New("store redis: an empty address")
		}
		o.Addresses = append(o.Addresses, a)
	}
	if len(o.Addresses) == 0 {
		return errors.New("store redis needs an address (host:port or redis:// URL)")
	}
	if len(o.Addresses) == 1 && strings.Contains(o.Addresses[0], "://") {
		u, err := redis.ParseURL(o.Addresses[0])
		if err != nil {
			return fmt.Errorf("store redis address: %w", err)
		}
		o.Addresses = []string{u.Addr}
		if u.Username != "" {
			o.Username = u.Username
		}
		if u.Password != "" {
			o.Password = u.Password
		}
		if u.DB != 0 {
			o.DB = u.DB
		}
		if u.TLSConfig != nil && r.TLS == nil {
			r.TLS = &RedisTLS{ServerName: u.TLSConfig.ServerName}
		}
	}
	for _, a := range o.Addresses {
		if strings.Contains(a, "://") {
			return fmt.Errorf("store redis address %q: a URL only as the one address", a)
		}
	}
	if o.DB != 0 && r.Master == "" && len(o.Addresses) > 1 {
		return errors.New("store redis: a Cluster has no database number (db)")
	}
	if r.TLS != nil {
		cfg, err := r.TLS.config()
		if err != nil {
			return fmt.Errorf("store redis tls: %w", err)
		}
		o.TLS = cfg
	}
	o.Prefix = r.Prefix
	if o.Prefix == "" {
		o.Prefix = defaultRedisPrefix
	}
	r.opts = o
	return nil
}

// Where implements Engine.
func (r *Redis) Where() string { return r.opts.Describe() + " prefix " + r.opts.Prefix }

// Exclusive implements Engine: several instances share a Redis.
func (r *Redis) Exclusive() bool { return false }

// PoolKey implements Engine: one client per Redis and credentials (the
// prefix is a view on it).
func (r *Redis) PoolKey() string {
	o := r.opts
	addrs := slices.Clone(o.Addresses)
	slices.Sort(addrs)
	return strings.Join([]string{"redis", strings.Join(addrs, ","), o.MasterName, o.Username, o.Password,
		o.SentinelUsername, o.SentinelPassword, strconv.Itoa(o.DB), fmt.Sprint(r.TLS != nil), fmt.Sprint(r.TLS)}, "\x00")
}

// Open implements Engine: the client, which connects on its first call.
func (r *Redis) Open() (Database, error) {
	o := r.opts
	o.Prefix = ""
	return redisDB{client: redis.NewUniversalClient(o.Universal())}, nil
}

// Check implements Engine: Redis answers, and keeps what it is given
// (store.Redis.CheckDurable) unless AcceptVolatile.
func (r *Redis) Check(ctx context.Context, db Database) error {
	d := db.(redisDB)
	if err := d.client.Ping(ctx).Err(); err != nil {
		var refused redis.Error
		var cert *tls.CertificateVerificationError
		if errors.As(err, &refused) || errors.As(err, &cert) {
			// Redis answered, and said no (a wrong password), or its
			// certificate is not the one expected: the configuration's
			// fault, not a Redis still starting.
			return fmt.Errorf("%s refused the connection: %w", r.opts.Describe(), err)
		}
		return fmt.Errorf("%w: %s does not answer PING: %w", ErrUnreachable, r.opts.Describe(), err)
	}
	err := store.NewRedis(d.client, "").CheckDurable(ctx)
	switch {
	case err == nil:
	case !errors.Is(err, store.ErrVolatile):
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	case r.AcceptVolatile:
		r.logger.Warn("Redis could lose bookings; started anyway, as accept_volatile says", zap.String("store", r.Where()), zap.Error(err))
	default:
		return fmt.Errorf("%w (to start anyway, losing bookings if it restarts or fills up, set accept_volatile)", err)
	}
	return nil
}

// CheckTimeout implements Engine.
func (r *Redis) CheckTimeout() time.Duration { return r.opts.DialTimeout + 2*time.Second }

// View implements Engine.
func (r *Redis) View(root store.Store) store.Store { return store.WithPrefix(root, r.opts.Prefix) }

// redisDB is a Redis client in the pool.
type redisDB struct{ client redis.UniversalClient }

// Store implements Database.
func (d redisDB) Store() store.Store { return store.NewRedis(d.client, "") }

// Destruct closes the client once no configuration holds it.
func (d redisDB) Destruct() error { return d.client.Close() }

// Interface guards
var (
	_ Engine            = (*Redis)(nil)
	_ caddy.Provisioner = (*Redis)(nil)
)
