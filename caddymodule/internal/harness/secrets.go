package harness

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// AssertNoSecrets fails the test if logs hold any of tokens (identity
// or access tokens), the signature of one alone, or a line of the
// private key files keyFiles (the base64 lines of their PEM).
func AssertNoSecrets(t testing.TB, logs []byte, tokens []string, keyFiles ...string) {
	t.Helper()
	var secrets []string
	for _, tok := range tokens {
		// The signature alone is secret enough to look for.
		secrets = append(secrets, tok, tok[strings.LastIndexByte(tok, '.')+1:])
	}
	for _, f := range keyFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if len(line) >= 40 && !strings.HasPrefix(line, "-----") {
				secrets = append(secrets, line)
			}
		}
	}
	for _, s := range secrets {
		if bytes.Contains(logs, []byte(s)) {
			t.Fatalf("secret %.12s... found in the logs", s)
		}
	}
}
