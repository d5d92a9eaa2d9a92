package tokenauth

import (
	"errors"
	"testing"
)

// TestPartnerLoginResolve: the rules of a consumer's login, for each
// grant with and without an issuer, and the defaults of the audience and
// the partner label.
func TestPartnerLoginResolve(t *testing.T) {
	const tokenURL = "https://login.sncf.example:8443/oauth/token"
	base := PartnerLogin{TokenURL: tokenURL, Subject: "example-railway"}
	with := func(edit func(*PartnerLogin)) PartnerLogin {
		l := base
		edit(&l)
		return l
	}
	for _, tc := range []struct {
		name string
		in   PartnerLogin
		want PartnerLogin
	}{
		{"no grant, issuer given: jwt_bearer, defaults", with(func(l *PartnerLogin) { l.Issuer = "https://rail.example" }),
			PartnerLogin{TokenURL: tokenURL, Partner: "login.sncf.example", Grant: GrantJWTBearer,
				Issuer: "https://rail.example", Subject: "example-railway", Audience: tokenURL}},
		{"jwt_bearer, issuer given", with(func(l *PartnerLogin) { l.Grant = GrantJWTBearer; l.Issuer = "https://rail.example" }),
			PartnerLogin{TokenURL: tokenURL, Partner: "login.sncf.example", Grant: GrantJWTBearer,
				Issuer: "https://rail.example", Subject: "example-railway", Audience: tokenURL}},
		{"client_assertion, no issuer: the subject", with(func(l *PartnerLogin) { l.Grant = GrantClientAssertion }),
			PartnerLogin{TokenURL: tokenURL, Partner: "login.sncf.example", Grant: GrantClientAssertion,
				Issuer: "example-railway", Subject: "example-railway", Audience: tokenURL}},
		{"client_assertion, issuer given: kept", with(func(l *PartnerLogin) { l.Grant = GrantClientAssertion; l.Issuer = "https://rail.example" }),
			PartnerLogin{TokenURL: tokenURL, Partner: "login.sncf.example", Grant: GrantClientAssertion,
				Issuer: "https://rail.example", Subject: "example-railway", Audience: tokenURL}},
		{"audience and partner given: kept", with(func(l *PartnerLogin) {
			l.Issuer, l.Audience, l.Partner = "https://rail.example", "https://login.sncf.example/aud", "sncf"
		}),
			PartnerLogin{TokenURL: tokenURL, Partner: "sncf", Grant: GrantJWTBearer,
				Issuer: "https://rail.example", Subject: "example-railway", Audience: "https://login.sncf.example/aud"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("Resolve() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPartnerLoginResolveErrors: an issuer missing with jwt_bearer (said
// or by default) and an unknown grant are refused, naming the setting in
// a message a caller can rename.
func TestPartnerLoginResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		name             string
		in               PartnerLogin
		field, msg, flag string
	}{
		{"no grant, no issuer", PartnerLogin{TokenURL: "https://l/t", Subject: "s"},
			"issuer", "issuer is required with grant jwt_bearer", "--issuer is required with grant jwt_bearer"},
		{"jwt_bearer, no issuer", PartnerLogin{TokenURL: "https://l/t", Subject: "s", Grant: GrantJWTBearer},
			"issuer", "issuer is required with grant jwt_bearer", "--issuer is required with grant jwt_bearer"},
		{"unknown grant", PartnerLogin{TokenURL: "https://l/t", Subject: "s", Issuer: "i", Grant: "password"},
			"grant", `grant "password": want jwt_bearer or client_assertion`, `--grant "password": want jwt_bearer or client_assertion`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.in.Resolve()
			var le *PartnerLoginError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *PartnerLoginError", err)
			}
			if le.Field != tc.field || err.Error() != tc.msg || le.Named("--"+le.Field) != tc.flag {
				t.Fatalf("field %q, message %q, as a flag %q; want %q, %q, %q",
					le.Field, err, le.Named("--"+le.Field), tc.field, tc.msg, tc.flag)
			}
		})
	}
}
