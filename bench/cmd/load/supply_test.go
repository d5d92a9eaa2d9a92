package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/caddy-osdm/caddy-osdm/converter"
)

// TestSupplyMakesWhatEachAttackNeeds: before an attack the supply makes
// only what the attack may send and it does not hold yet (the guess
// before the scenario ran, then its fastest rate, the open loop its
// rate), numbering on from the last; what an attack sent is not sent
// again.
func TestSupplyMakesWhatEachAttackNeeds(t *testing.T) {
	type batch struct{ first, n int }
	var made []batch
	s := &supply{guess: 100, make: func(_ context.Context, first, n int) ([]vegeta.Target, error) {
		made = append(made, batch{first, n})
		ts := make([]vegeta.Target, n)
		for i := range ts {
			ts[i].URL = fmt.Sprint(first + i)
		}
		return ts, nil
	}}
	closed := phase{name: "closed", concurrency: 8, duration: 2 * time.Second}
	want := 100*2*supplyMargin + 2*8 + 10 // 286
	tr, used, err := s.ready(t.Context(), "X", closed)
	if err != nil || len(made) != 1 || made[0] != (batch{0, int(want)}) {
		t.Fatalf("first attack: made %v, %v; want one batch of %v from 0", made, err, want)
	}
	for range 200 {
		if err := tr(&vegeta.Target{}); err != nil {
			t.Fatal(err)
		}
	}
	s.sent(used(), 50) // the scenario's own rate replaces the guess
	// 50*2*1.3+26 = 156 needed, 86 held.
	tr, used, err = s.ready(t.Context(), "X", closed)
	if err != nil || len(made) != 2 || made[1] != (batch{int(want), 70}) {
		t.Fatalf("second attack: made %v, %v; want 70 more, numbered from %v", made, err, want)
	}
	var first vegeta.Target
	if err := tr(&first); err != nil || first.URL != "200" {
		t.Fatalf("the second attack starts with %q (%v); want the first request not sent, 200", first.URL, err)
	}
	s.sent(used(), 300) // faster: the next closed attack gets more
	// 300*2*1.3+26 = 806 needed, 155 held.
	if _, _, err := s.ready(t.Context(), "X", closed); err != nil || len(made) != 3 || made[2] != (batch{356, 651}) {
		t.Fatalf("after 300 a second: made %v, %v; want 651 more from 356", made, err)
	}
	s.sent(0, 10) // a slower attack does not lower the rate
	if n := s.need(closed); n != 806 {
		t.Fatalf("need %d after a slower attack, want 806", n)
	}
	open := phase{name: "open", concurrency: 8, rate: 1000, duration: time.Second}
	if s.need(open) != 1000*13/10+26 {
		t.Fatalf("open loop at 1000/s for 1 s: need %d", s.need(open))
	}
}

// TestPreparationTakesTheTokenForEachCall: the offers and bookings made
// ahead ask the driver's token cache for every call, so a preparation
// longer than a token's lifetime is not refused with an expired one.
func TestPreparationTakesTheTokenForEachCall(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Authorization")]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"offers":[{"offerId":"o-%d"}]}`, time.Now().UnixNano())
	}))
	defer srv.Close()
	offers, err := makeOffers(t.Context(), srv.URL, &turningTokens{}, 0, 5)
	if err != nil || len(offers) != 5 {
		t.Fatalf("makeOffers: %v, %v", offers, err)
	}
	if len(seen) < 5 {
		t.Fatalf("searches made with %v; want a token taken for each", seen)
	}

	clear(seen)
	x := &httpCaller{rt: http.DefaultTransport, base: srv.URL, tokens: &turningTokens{}}
	for range 3 {
		if _, err := x.Call(t.Context(), &converter.Call{Method: http.MethodGet, Path: "/bookings/b1", Header: http.Header{}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 3 || seen["Bearer t1"] != 1 || seen["Bearer t3"] != 1 {
		t.Fatalf("the converter's calls carried %v; want t1, t2, t3", seen)
	}
}
