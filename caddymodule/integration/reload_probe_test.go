package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/golang-jwt/jwt/v5"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

// The reload test watches the partner from inside its Caddy: a probe
// placed before osdm_login and osdm_access records which kid signed each
// identity token, which access token each login issued, and which access
// token each OSDM call carried. A tap proxy in front of the partner would
// be one more hop with connections of its own.
func init() {
	caddy.RegisterModule(reloadProbe{})
	modulekit.RegisterHandler[reloadProbe]("reload_probe")
}

// reloadProbe is the test-only handler http.handlers.reload_probe. It
// appends one JSON line per request to File.
type reloadProbe struct {
	File string `json:"file"`

	out *os.File
}

// probeRecord is one line of a probe file.
type probeRecord struct {
	LoginKid  string `json:"login_kid,omitempty"`  // kid of an identity token
	IssuedJTI string `json:"issued_jti,omitempty"` // jti of the access token that login issued
	CallJTI   string `json:"call_jti,omitempty"`   // jti of the access token an OSDM call carried
}

// probeWrites keeps the lines of concurrent requests whole.
var probeWrites sync.Mutex

// CaddyModule returns the Caddy module information.
func (reloadProbe) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.reload_probe", New: func() caddy.Module { return new(reloadProbe) }}
}

// UnmarshalCaddyfile reads `reload_probe { file <path> }`: a path
// argument would be taken for a path matcher.
func (p *reloadProbe) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		if d.Val() != "file" || !d.Args(&p.File) || d.NextArg() {
			return d.ArgErr()
		}
	}
	if p.File == "" {
		return d.Err("reload_probe needs a file")
	}
	return nil
}

// Provision opens the file.
func (p *reloadProbe) Provision(caddy.Context) (err error) {
	p.out, err = os.OpenFile(p.File, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	return err
}

// Cleanup closes the file.
func (p *reloadProbe) Cleanup() error { return p.out.Close() }

func (p *reloadProbe) record(r probeRecord) {
	line, _ := json.Marshal(r)
	probeWrites.Lock()
	defer probeWrites.Unlock()
	_, _ = p.out.Write(append(line, '\n'))
}

func (p *reloadProbe) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if r.URL.Path != "/oauth/token" {
		p.record(probeRecord{CallJTI: unverifiedClaim(strings.TrimPrefix(r.Header.Get("Authenticate"), "Bearer "), "jti")})
		return next.ServeHTTP(w, r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	form, _ := url.ParseQuery(string(body))
	kid := "?"
	if tok, _, err := jwt.NewParser().ParseUnverified(form.Get("assertion")+form.Get("client_assertion"), jwt.MapClaims{}); err == nil {
		kid, _ = tok.Header["kid"].(string)
	}
	rec := &probeRecorder{ResponseWriter: w}
	err = next.ServeHTTP(rec, r)
	var answer struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(rec.body.Bytes(), &answer)
	p.record(probeRecord{LoginKid: kid, IssuedJTI: unverifiedClaim(answer.AccessToken, "jti")})
	return err
}

// probeRecorder passes a response on and keeps a copy of its body.
type probeRecorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (p *probeRecorder) Write(b []byte) (int, error) {
	p.body.Write(b)
	return p.ResponseWriter.Write(b)
}

// unverifiedClaim reads a string claim of a JWT without checking it.
func unverifiedClaim(token, name string) string {
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, claims); err != nil {
		return ""
	}
	s, _ := claims[name].(string)
	return s
}

// readProbe returns, from a probe file, the kid of each login in order and
// the kid behind the access token of each OSDM call in order ("" for a
// token no recorded login issued).
func readProbe(t *testing.T, path string) (loginKids, callKids []string) {
	t.Helper()
	// The partner may be writing a line while this reads: JSONLines
	// leaves it out.
	records := harness.JSONLines[probeRecord](t, path)
	// A login's line is written once its answer is sent, so a call with
	// the new token may come first in the file.
	issuedBy := map[string]string{}
	for _, r := range records {
		if r.LoginKid != "" {
			loginKids = append(loginKids, r.LoginKid)
			if r.IssuedJTI != "" {
				issuedBy[r.IssuedJTI] = r.LoginKid
			}
		}
	}
	for _, r := range records {
		if r.LoginKid == "" {
			callKids = append(callKids, issuedBy[r.CallJTI])
		}
	}
	return loginKids, callKids
}

// Interface guard (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var _ harness.Module = (*reloadProbe)(nil)
