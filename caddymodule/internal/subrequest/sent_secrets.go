package subrequest

import (
	"bytes"
	"context"
	"strings"
	"sync"
)

// SentSecrets collects the credentials (the bearers' tokens) that a
// transport put on the upstream requests made with a context, so that the
// one who made the requests can keep them out of what it reads of the
// answers: a partner that quotes the token it was sent (a 401's "invalid
// token ...", its request headers echoed in a problem) would otherwise
// have it quoted on, into a legacy reply and a log. Safe for concurrent
// use.
type SentSecrets struct {
	mu     sync.Mutex
	tokens [][]byte
}

type sentSecretsKey struct{}

// minSecret is the shortest credential Redact looks for: a shorter one
// is no token a login service issues, and would match common text.
const minSecret = 8

// WithSentSecrets returns ctx carrying s: the bearers of the requests
// made with it are added to s (WithBearerHeaders). The zero SentSecrets
// is ready to use.
func WithSentSecrets(ctx context.Context, s *SentSecrets) context.Context {
	return context.WithValue(ctx, sentSecretsKey{}, s)
}

// add records a header value a bearer put on a request: the credential
// after its scheme ("Bearer "), when it is long enough to look for.
func (s *SentSecrets) add(value string) {
	if _, cred, ok := strings.Cut(value, " "); ok {
		value = strings.TrimSpace(cred)
	}
	if len(value) < minSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tokens {
		if string(t) == value {
			return
		}
	}
	s.tokens = append(s.tokens, []byte(value))
}

// redacted is what stands for a credential in an answer.
var redacted = []byte("[redacted]")

// Redact returns b with every credential s holds replaced by
// "[redacted]": b itself when it holds none (the usual case; b is not
// written to), else a new slice.
func (s *SentSecrets) Redact(b []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tokens {
		if bytes.Contains(b, t) {
			b = bytes.ReplaceAll(b, t, redacted)
		}
	}
	return b
}

// sentSecretsOf returns the SentSecrets of ctx, nil when it has none.
func sentSecretsOf(ctx context.Context) *SentSecrets {
	s, _ := ctx.Value(sentSecretsKey{}).(*SentSecrets)
	return s
}
