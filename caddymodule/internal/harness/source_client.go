package harness

import (
	"net"
	"net/http"
	"time"
)

// ClientFrom is an HTTP client whose connections come from the address
// source ("": the system's choice), for a front whose remote_ip matcher
// admits only certain sources (127.0.0.2 is the loopback's too).
func ClientFrom(source string) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if source != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(source)}
	}
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}
