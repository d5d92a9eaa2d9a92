package store_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// The store benchmarks: one call of each method on bolt (a real file,
// fsync on every write) and on Redis (OSDM_TEST_REDIS). A value is 256
// bytes, about a journal entry or a booking record.

func benchBolt(b *testing.B) store.Store {
	s, err := store.OpenBolt(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchRedis(b *testing.B) store.Store { return openTestRedis(b) }

var benchValue = make([]byte, 256)

func BenchmarkBoltPut(b *testing.B)           { benchPut(b, benchBolt(b)) }
func BenchmarkBoltPutIfAbsent(b *testing.B)   { benchPutIfAbsent(b, benchBolt(b)) }
func BenchmarkBoltCompareAndSet(b *testing.B) { benchCAS(b, benchBolt(b)) }
func BenchmarkBoltGet(b *testing.B)           { benchGet(b, benchBolt(b)) }

func BenchmarkRedisPut(b *testing.B)           { benchPut(b, benchRedis(b)) }
func BenchmarkRedisPutIfAbsent(b *testing.B)   { benchPutIfAbsent(b, benchRedis(b)) }
func BenchmarkRedisCompareAndSet(b *testing.B) { benchCAS(b, benchRedis(b)) }
func BenchmarkRedisGet(b *testing.B)           { benchGet(b, benchRedis(b)) }

func benchPut(b *testing.B, s store.Store) {
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.Put(ctx, "k/"+strconv.Itoa(i%1000), benchValue, time.Hour); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func benchPutIfAbsent(b *testing.B, s store.Store) {
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ok, err := s.PutIfAbsent(ctx, "k/"+strconv.Itoa(i), benchValue, time.Hour)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		i++
	}
}

func benchCAS(b *testing.B, s store.Store) {
	ctx := context.Background()
	vals := [2][]byte{append([]byte("a"), benchValue...), append([]byte("b"), benchValue...)}
	if err := s.Put(ctx, "cas", vals[0], 0); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ok, err := s.CompareAndSet(ctx, "cas", vals[i%2], vals[(i+1)%2], 0)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		i++
	}
}

func benchGet(b *testing.B, s store.Store) {
	ctx := context.Background()
	for i := range 1000 {
		if err := s.Put(ctx, "k/"+strconv.Itoa(i), benchValue, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Get(ctx, "k/"+strconv.Itoa(i%1000)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
