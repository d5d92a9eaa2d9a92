package tokenauth

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestCheckClaimNames(t *testing.T) {
	cases := []struct {
		name, claims string
		key, claim   string // "" when the claims pass
	}{
		{"exact names", `{"iss":"a","sub":"b","aud":["c"],"exp":1,"nbf":1,"iat":1,"jti":"j","scope":"s","client_id":"b"}`, "", ""},
		{"other keys in any case", `{"Pad":"x","AUDIENCE":1,"Sco":2,"sub":"b"}`, "", ""},
		{"capital", `{"sub":"b","Aud":"c"}`, "Aud", "aud"},
		{"mixed case", `{"eXp":1}`, "eXp", "exp"},
		{"both cases", `{"aud":"c","AUD":"d"}`, "AUD", "aud"},
		{"long s folds to s", `{"ſub":"b"}`, "ſub", "sub"},
		{"escaped capital", `{"\u0041ud":"c"}`, "Aud", "aud"},
		{"escaped exact name", `{"\u0061ud":"c"}`, "", ""},
		{"whitespace", " {\n\t\"iss\" : 1 ,\r\n \"Jti\" : 2 } ", "Jti", "jti"},
		{"client_id in another case", `{"Client_ID":"b"}`, "Client_ID", "client_id"},
		{"nested object keys are not claims", `{"cnf":{"Aud":1,"x":[{"EXP":2}]},"sub":"b"}`, "", ""},
		{"array values are not keys", `{"aud":["Aud","EXP",{"Sub":1}],"x":"y"}`, "", ""},
		{"string values are not keys", `{"x":"Aud","y":"\",\"Exp\":1","z":"}{["}`, "", ""},
		{"key after nested values", `{"a":{"b":[1,{"c":"}"}]},"d":"\\","Iat":1}`, "Iat", "iat"},
		{"escaped quote in a key", `{"a\"b":1,"Nbf":2}`, "Nbf", "nbf"},
		{"escaped control characters in another key", `{"SUB\u0000\n":1,"Sub":2}`, "Sub", "sub"},
		{"escaped backslash before a closing quote", `{"x\\":"\\","Exp":1}`, "Exp", "exp"},
		{"not an object", `["Aud"]`, "", ""},
	}
	for _, tc := range cases {
		cc := checkClaimNames([]byte(tc.claims), accessClaimNames)
		if tc.key == "" {
			if cc != nil {
				t.Errorf("%s: %v", tc.name, cc)
			}
			continue
		}
		if cc == nil || cc.Key != tc.key || cc.Claim != tc.claim {
			t.Errorf("%s: %v, want %q as %q", tc.name, cc, tc.key, tc.claim)
		}
	}
	if cc := checkClaimNames([]byte(`{"Client_ID":"b"}`), identityClaimNames); cc != nil {
		t.Errorf("identity tokens do not read client_id: %v", cc)
	}
}

// TestClaimNameCaseErrorQuotesSafely: the key is the token's, so the
// message escapes and shortens it.
func TestClaimNameCaseErrorQuotesSafely(t *testing.T) {
	msg := (&ClaimNameCaseError{Key: "Sub\x00\n" + strings.Repeat("x", 200), Claim: "sub"}).Error()
	if strings.ContainsAny(msg, "\x00\n") || len(msg) > 200 || !strings.Contains(msg, `"sub"`) {
		t.Fatalf("message %q", msg)
	}
}

// BenchmarkCheckTokenClaimNames is the claim-name check alone, on an
// access token as the login service issues it.
func BenchmarkCheckTokenClaimNames(b *testing.B) {
	claims := `{"iss":"https://login.example-provider.eu","sub":"alpine","aud":["https://login.example-provider.eu"],` +
		`"exp":1772367300,"iat":1772366400,"jti":"331d20b2-5c0f-4304-a14c-198b0d1b9bd1","scope":"uic_osdm","client_id":"alpine"}`
	b64 := base64.RawURLEncoding
	token := b64.EncodeToString([]byte(`{"alg":"ES256","kid":"login-1","typ":"at+jwt"}`)) + "." + b64.EncodeToString([]byte(claims)) + "." +
		b64.EncodeToString(make([]byte, 64))
	b.ReportAllocs()
	for b.Loop() {
		if cc := checkTokenClaimNames(token, accessClaimNames); cc != nil {
			b.Fatal(cc)
		}
	}
}

// TestTokenChecksDoNotAllocate: both scans run on osdm_access's hot path
// for every request, on the claims decoded into a stack buffer; a token of
// usual size costs them no allocation.
func TestTokenChecksDoNotAllocate(t *testing.T) {
	claims := `{"iss":"https://login.example-provider.eu","sub":"alpine","aud":["https://login.example-provider.eu"],` +
		`"exp":1772367300,"iat":1772366400,"jti":"331d20b2-5c0f-4304-a14c-198b0d1b9bd1","scope":"uic_osdm","client_id":"alpine"}`
	b64 := base64.RawURLEncoding
	token := b64.EncodeToString([]byte(`{"alg":"ES256","kid":"login-1","typ":"at+jwt"}`)) + "." + b64.EncodeToString([]byte(claims)) + "." +
		b64.EncodeToString(make([]byte, 64))
	if n := testing.AllocsPerRun(100, func() {
		if cc := checkTokenClaimNames(token, accessClaimNames); cc != nil {
			t.Fatal(cc)
		}
	}); n != 0 {
		t.Errorf("checkTokenClaimNames: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		if fe := checkTokenForm(token); fe != nil {
			t.Fatal(fe)
		}
	}); n != 0 {
		t.Errorf("checkTokenForm: %v allocations, want 0", n)
	}
}

func TestCheckTokenClaimNames(t *testing.T) {
	b64 := base64.RawURLEncoding
	jws := func(claims string) string {
		return b64.EncodeToString([]byte(`{"alg":"ES256"}`)) + "." + b64.EncodeToString([]byte(claims)) + ".c2ln"
	}
	long := `{"pad":"` + strings.Repeat("x", 3000) + `","Aud":"a"}`
	cases := []struct {
		name, token, key string
	}{
		{"usual size", jws(`{"sub":"a","eXp":1}`), "eXp"},
		{"claims larger than the stack buffer", jws(long), "Aud"},
		{"claims base64 with line breaks, which golang-jwt also skips", func() string {
			h, c, _ := strings.Cut(jws(`{"Sub":"a"}`), ".")
			return h + "." + c[:4] + "\r\n" + c[4:]
		}(), "Sub"},
		{"two parts", strings.TrimSuffix(jws(`{"Aud":"a"}`), ".c2ln"), ""},
		{"claims not base64url", "e30.e%%%.c2ln", ""},
		{"exact names", jws(`{"aud":"a","exp":1}`), ""},
	}
	for _, tc := range cases {
		cc := checkTokenClaimNames(tc.token, accessClaimNames)
		if (cc == nil) != (tc.key == "") || cc != nil && cc.Key != tc.key {
			t.Errorf("%s: %v, want key %q", tc.name, cc, tc.key)
		}
	}
}
