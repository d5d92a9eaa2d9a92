package provider

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Why osdm_access writes the access log line of the requests it reads a
// token from: Caddy's access log prints the request's headers as they came
// in, copied before the first handler runs, and redacts only
// Authorization, Cookie, Set-Cookie and Proxy-Authorization. OSDM's
// Authenticate header would be printed in clear, and no handler can reach
// that copy. So for a request that carries the header, osdm_access flags
// Caddy's own line to be skipped (the log_skip variable, as the log_skip
// directive sets it) and writes the same line itself, to the same access
// loggers, with the header's value REDACTED: message, level, the request
// (as it came in), bytes_read, user_id, duration, size, status,
// resp_headers and the fields other handlers added (log_append,
// osdm_convert's exchange fields).

// redactedLine is the access log line of one request, written by
// osdm_access instead of Caddy's.
type redactedLine struct {
	srv     *caddyhttp.Server
	base    *zap.Logger // "http.log.access"
	req     *http.Request
	start   time.Time
	body    *countingBody
	rec     caddyhttp.ResponseRecorder
	repl    *caddy.Replacer
	loggers []*zap.Logger
}

// takeAccessLog returns, for a request that carries header and that
// Caddy would write an access log line for, the line osdm_access writes
// instead (Caddy's is skipped from now on) and the writer to pass on;
// nil and w when there is nothing to take over.
func takeAccessLog(base *zap.Logger, w http.ResponseWriter, r *http.Request, header string) (*redactedLine, http.ResponseWriter) {
	if base == nil || r.Header.Get(header) == "" {
		return nil, w
	}
	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if srv == nil || srv.Logs == nil || !accessLogged(srv.Logs, r) {
		return nil, w
	}
	if skip, _ := caddyhttp.GetVar(r.Context(), caddyhttp.LogSkipVar).(bool); skip {
		return nil, w
	}
	// The request as it came in (Caddy keeps its method, host and URI
	// from before any rewrite), its header redacted.
	req := r.Clone(r.Context())
	if orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok {
		req.Method, req.RequestURI = orig.Method, orig.RequestURI
	}
	req.Header.Set(header, "REDACTED")
	start, ok := caddyhttp.GetVar(r.Context(), "start_time").(time.Time)
	if !ok {
		start = time.Now()
	}
	l := &redactedLine{srv: srv, base: base, req: req, start: start,
		rec: caddyhttp.NewResponseRecorder(w, nil, nil)}
	l.repl, _ = r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if r.Body != nil && r.Body != http.NoBody {
		l.body = &countingBody{ReadCloser: r.Body}
		r.Body = l.body
	}
	caddyhttp.SetVar(r.Context(), caddyhttp.LogSkipVar, true)
	return l, l.rec
}

// done takes what the response was once the handlers after osdm_access
// returned err, and writes the line when the request has ended: after
// every handler, those before osdm_access included, has added its fields
// (log_append adds its own after the handlers it wraps return), as Caddy
// writes its line last.
func (l *redactedLine) done(r *http.Request, err error) {
	status, size, header := l.rec.Status(), l.rec.Size(), l.rec.Header().Clone()
	context.AfterFunc(r.Context(), func() { l.write(r, err, status, size, header) })
}

// write writes the line.
func (l *redactedLine) write(r *http.Request, err error, status, size int, respHeader http.Header) {
	ctx := r.Context()
	if err != nil && status == 0 {
		// Caddy answers the error after the handlers return.
		status = http.StatusInternalServerError
		var he caddyhttp.HandlerError
		if errors.As(err, &he) && he.StatusCode != 0 {
			status = he.StatusCode
		}
	}
	message := "handled request"
	if nop, _ := caddyhttp.GetVar(ctx, "unhandled").(bool); nop {
		message = "NOP"
	}
	level := zapcore.InfoLevel
	if status >= 500 {
		level = zapcore.ErrorLevel
	}
	if name, ok := caddyhttp.GetVar(ctx, caddyhttp.LogLevelVar).(string); ok {
		if lv, err := zapcore.ParseLevel(name); err == nil && lv >= zapcore.DebugLevel && lv <= zapcore.ErrorLevel {
			level = lv
		}
	}
	creds := l.srv.Logs.ShouldLogCredentials
	userID := ""
	if l.repl != nil {
		userID, _ = l.repl.GetString("http.auth.user.id")
	}
	read := 0
	if l.body != nil {
		read = l.body.n
	}
	var fields []zapcore.Field
	for _, lg := range accessLoggers(l.srv.Logs, l.base, r) {
		ce := lg.Check(level, message)
		if ce == nil {
			continue
		}
		if fields == nil {
			fields = append([]zapcore.Field{
				zap.Object("request", caddyhttp.LoggableHTTPRequest{Request: l.req, ShouldLogCredentials: creds}),
				zap.Int("bytes_read", read),
				zap.String("user_id", userID),
				zap.Duration("duration", time.Since(l.start)),
				zap.Int("size", size),
				zap.Int("status", status),
				zap.Object("resp_headers", caddyhttp.LoggableHTTPHeader{Header: respHeader, ShouldLogCredentials: creds}),
			}, extraLogFields(r)...)
		}
		ce.Write(fields...)
	}
}

// countingBody counts the request body bytes read (bytes_read).
type countingBody struct {
	io.ReadCloser
	n int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += n
	return n, err
}

// accessLogged reports whether Caddy writes an access log line for r's
// host (caddyhttp.Server's rule).
func accessLogged(slc *caddyhttp.ServerLogConfig, r *http.Request) bool {
	host := hostOnly(r.Host)
	for name := range slc.LoggerNames {
		if matchWildcard(host, name) {
			return true
		}
	}
	for _, h := range slc.SkipHosts {
		if matchWildcard(host, h) {
			return false
		}
	}
	return !slc.SkipUnmappedHosts
}

// accessLoggers are the loggers Caddy writes r's access log line to: the
// names the request's access_logger_names variable gives (log_name), or
// those its host maps to, or the default one.
func accessLoggers(slc *caddyhttp.ServerLogConfig, base *zap.Logger, r *http.Request) []*zap.Logger {
	var names []string
	if v, ok := caddyhttp.GetVar(r.Context(), caddyhttp.AccessLoggerNameVarKey).([]any); ok {
		for _, n := range v {
			s, _ := n.(string)
			names = append(names, s)
		}
	} else {
		names = loggerNamesOf(slc, strings.ToLower(hostOnly(r.Host)))
	}
	out := make([]*zap.Logger, 0, len(names))
	for _, n := range names {
		if n == "" {
			out = append(out, base)
		} else {
			out = append(out, base.Named(n))
		}
	}
	return out
}

// loggerNamesOf is the logger names of host: exact, then by wildcard
// label, else the default.
func loggerNamesOf(slc *caddyhttp.ServerLogConfig, host string) []string {
	if names, ok := slc.LoggerNames[host]; ok {
		return names
	}
	labels := strings.Split(host, ".")
	for i := range labels {
		if labels[i] == "" {
			continue
		}
		labels[i] = "*"
		if names, ok := slc.LoggerNames[strings.Join(labels, ".")]; ok {
			return names
		}
	}
	return []string{slc.DefaultLoggerName}
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// matchWildcard reports whether host matches pattern, whose labels may be
// "*" (one label each), case-insensitively.
func matchWildcard(host, pattern string) bool {
	if strings.EqualFold(host, pattern) {
		return true
	}
	hl, pl := strings.Split(host, "."), strings.Split(pattern, ".")
	if len(hl) != len(pl) {
		return false
	}
	for i := range pl {
		if pl[i] != "*" && !strings.EqualFold(pl[i], hl[i]) {
			return false
		}
	}
	return true
}

// extraLogFields are the fields other handlers added to r's access log
// line (caddyhttp.ExtraLogFields, which has no getter: read by
// reflection; TestAccessTokenNotInAccessLog holds a log_append field to
// it, so a Caddy that changes the type fails the test, not the log).
func extraLogFields(r *http.Request) []zapcore.Field {
	e, _ := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields)
	if e == nil {
		return nil
	}
	v := reflect.ValueOf(e).Elem().FieldByName("fields")
	if !v.IsValid() || v.Type() != reflect.TypeFor[[]zapcore.Field]() {
		return nil
	}
	fs := *(*[]zapcore.Field)(unsafe.Pointer(v.UnsafeAddr()))
	return append([]zapcore.Field(nil), fs...)
}
