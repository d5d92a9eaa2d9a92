package redistest

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestSharedWithoutEnvStartsRedis: without OSDM_TEST_REDIS, a test that
// asks for the shared Redis runs (go test does not show a passing
// package's skips), on a Redis of its own that keeps what it is given
// (the app refuses one that does not), shared with its subtests and
// with no other test.
func TestSharedWithoutEnvStartsRedis(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed: test skipped")
	}
	t.Setenv("OSDM_TEST_REDIS", "")
	var addr, again string
	ran := t.Run("asks", func(t *testing.T) {
		addr = Shared(t)
		t.Run("subtest", func(t *testing.T) { again = Shared(t) })
	})
	if !ran || addr == "" {
		t.Fatal("without OSDM_TEST_REDIS the Redis test did not run (skipped)")
	}
	if again != addr {
		t.Errorf("a subtest got Redis %s, its test %s", again, addr)
	}
	// The server lives as long as the test that started it: a sibling
	// (which may run in parallel) and the parent get their own.
	var sibling string
	t.Run("sibling", func(t *testing.T) { sibling = Shared(t) })
	if sibling == "" || sibling == addr {
		t.Errorf("a sibling test got Redis %q, the first %s", sibling, addr)
	}
	other := Shared(t)
	c := redis.NewClient(&redis.Options{Addr: other})
	defer c.Close()
	info, err := c.Info(context.Background(), "persistence").Result()
	if err != nil {
		t.Fatalf("the Redis Shared started does not answer: %v", err)
	}
	if !strings.Contains(info, "aof_enabled:1") {
		t.Errorf("the Redis Shared started does not persist:\n%s", info)
	}
	if other == addr {
		t.Errorf("the subtest's Redis %s outlived it", addr)
	}
}

// TestSharedNamed: OSDM_TEST_REDIS is used as it is.
func TestSharedNamed(t *testing.T) {
	t.Setenv("OSDM_TEST_REDIS", "127.0.0.1:1")
	if got := Shared(t); got != "127.0.0.1:1" {
		t.Fatalf("Shared = %s, want OSDM_TEST_REDIS's", got)
	}
}
