package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// fetchProfile saves a pprof profile from a Caddy admin endpoint, e.g.
// /debug/pprof/profile?seconds=10 (CPU, taken over the next 10 s) or
// /debug/pprof/allocs (allocations since the process started).
func fetchProfile(ctx context.Context, admin, path, file string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, admin+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("%s answered %s: %s", path, resp.Status, body)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
