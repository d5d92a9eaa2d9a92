package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// turningTokens hands out t1, t2, ... one per call, as a cache does
// across logins; after fail is set, it fails.
type turningTokens struct {
	n    atomic.Int64
	fail atomic.Bool
}

func (s *turningTokens) Token(context.Context) (*tokenauth.Token, error) {
	if s.fail.Load() {
		return nil, errors.New("login refused")
	}
	return &tokenauth.Token{AccessToken: "t" + strconv.FormatInt(s.n.Add(1), 10)}, nil
}

func TestAuthorizedTakesTheTokenForEachRequest(t *testing.T) {
	shared := jsonHeader("")
	src := &turningTokens{}
	tg := authorized(context.Background(), constant("http://front/offers", []byte("{}"), shared), src)
	for i := 1; i <= 3; i++ {
		var tgt vegeta.Target
		if err := tg(&tgt); err != nil {
			t.Fatal(err)
		}
		if got, want := tgt.Header.Get("Authorization"), "Bearer t"+strconv.Itoa(i); got != want {
			t.Fatalf("request %d: Authorization %q, want %q", i, got, want)
		}
		if tgt.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("request %d lost the targeter's header: %v", i, tgt.Header)
		}
	}
	if got := shared.Get("Authorization"); got != "" {
		t.Fatalf("the targeter's shared header was changed: Authorization %q", got)
	}
	src.fail.Store(true)
	var tgt vegeta.Target
	if err := tg(&tgt); err == nil || !strings.Contains(err.Error(), "login refused") {
		t.Fatalf("a failed login gave %v, want the login's error", err)
	}
}

func TestAuthorizedPassesTheEndOfTargetsOn(t *testing.T) {
	src := &turningTokens{}
	one, _ := each([]vegeta.Target{{Method: http.MethodPost, URL: "http://front/x", Header: http.Header{}}})
	tg := authorized(context.Background(), one, src)
	var tgt vegeta.Target
	if err := tg(&tgt); err != nil {
		t.Fatal(err)
	}
	if err := tg(&tgt); !errors.Is(err, vegeta.ErrNoTargets) {
		t.Fatalf("after the last target: %v, want ErrNoTargets", err)
	}
	if n := src.n.Load(); n != 1 {
		t.Fatalf("%d tokens taken for 1 request", n)
	}
}
