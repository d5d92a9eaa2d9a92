package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"
)

// waitCommand waits until a URL answers at all (any status): a Caddy just
// started is ready once its admin endpoint does.
func waitCommand(args []string) error {
	fs := flag.NewFlagSet("wait", flag.ExitOnError)
	url := fs.String("url", "", "URL to wait for")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait")
	_ = fs.Parse(args)
	if *url == "" {
		return errors.New("wait needs -url")
	}
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(*timeout)
	for {
		resp, err := client.Get(*url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer within %s: %w", *url, *timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
