package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// offerDays spreads D's bookings over this many departure days, so that no
// train run's capacity (10000 places in bench/caddyfiles/partner.caddyfile)
// runs out however many bookings a run makes.
const offerDays = 60

// makeOffers searches the partner directly (not through a front) until it
// holds n fresh one-adult offers, each bookable once, and returns their
// ids; each search takes the current token of tokens. first numbers the
// searches, so that each batch of a run spreads over the days as the one
// before.
func makeOffers(ctx context.Context, partner string, tokens tokenauth.TokenSource, first, n int) ([]string, error) {
	offers, err := prepare(n, 4, func(i int) ([]string, error) {
		token, err := accessToken(ctx, tokens)
		if err != nil {
			return nil, fmt.Errorf("bench-direct token: %w", err)
		}
		return searchOnce(ctx, partner, token, first+i)
	})
	if err != nil {
		return nil, fmt.Errorf("making offers: %w", err)
	}
	return offers, nil
}

// searchOnce makes the i-th one-adult search and returns its offers.
func searchOnce(ctx context.Context, partner, token string, i int) ([]string, error) {
	call, err := osdmCall(oneAdultSearch(fmt.Sprintf("offers-%d", i), 20+i%offerDays))
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, call.Method, partner+call.Path, bytes.NewReader(call.Body))
	if err != nil {
		return nil, err
	}
	req.Header = jsonHeader(token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST %s answered %s: %.300s", call.Path, resp.Status, body)
	}
	var found osdm.OfferCollectionResponse
	if err := json.Unmarshal(body, &found); err != nil {
		return nil, fmt.Errorf("reading the offers: %w", err)
	}
	if len(found.Offers) == 0 {
		return nil, fmt.Errorf("the search found no offer: %.300s", body)
	}
	ids := make([]string, len(found.Offers))
	for k, o := range found.Offers {
		ids[k] = o.OfferID
	}
	return ids, nil
}
