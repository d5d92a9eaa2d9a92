package doclinks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryLinks checks every relative link, and its #anchor, in the
// repository's Markdown files (README.md, docs/, SECURITY.md, ...).
func TestRepositoryLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not at %s: %v", root, err)
	}
	problems, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The check must have seen the documentation at all.
	links, err := Links(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(links) < 10 {
		t.Errorf("README.md has %d links; the checker reads none of them?", len(links))
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Try it":                              "try-it",
		"`osdm_convert` logs":                 "osdm_convert-logs",
		"Legacy to OSDM (`osdm_convert`)":     "legacy-to-osdm-osdm_convert",
		"Provider side: a consumer's new key": "provider-side-a-consumers-new-key",
		"`offer_search trip-offers`: the GET /trip-offers contract": "offer_search-trip-offers-the-get-trip-offers-contract",
		"When fulfilment fails: rollback":                           "when-fulfilment-fails-rollback",
		"Legacy -> OSDM":                                            "legacy---osdm",
		"[`osdm_token`](osdm_token.md) (consumer)":                  "osdm_token-consumer",
		"**Bold** heading, 2 parts":                                 "bold-heading-2-parts",
		"Zürich HB":                                                 "zürich-hb",
		"The login service's checks and where they are tested":      "the-login-services-checks-and-where-they-are-tested",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestCheckFindsBrokenLinks runs the checker on a small tree with one link
// of each kind, good and broken.
func TestCheckFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("demo.sh", "#!/bin/sh\n")
	write("docs/a.md", "# A\n\n## Same\n\n## Same\n\n<a name=\"custom\"></a>\n")
	write("README.md", strings.Join([]string{
		"# Readme",
		"## Local part",
		"[ok file](docs/a.md) [ok anchor](docs/a.md#same) [second same](docs/a.md#same-1)",
		"[ok html anchor](docs/a.md#custom) [ok local](#local-part) [ok script](demo.sh)",
		"[ok absolute](https://example.com/x#y) ![ok image](docs/a.md)",
		"[missing file](docs/b.md)",
		"[missing anchor](docs/a.md#nope)",
		"[missing local](#nowhere)",
		"[third same](docs/a.md#same-2)",
		"`[in a code span](nothere.md)`",
		"```",
		"[in a fence](nothere.md)",
		"```",
		"[ref]: docs/missing.md",
		"[rooted](/docs/a.md)",
	}, "\n")+"\n")
	problems, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Target)
	}
	want := []string{"docs/b.md", "docs/a.md#nope", "#nowhere", "docs/a.md#same-2", "docs/missing.md", "/docs/a.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("broken links found: %q\nwant %q\n(all problems: %v)", got, want, problems)
	}
	for _, p := range problems {
		if p.File != "README.md" || p.Line < 6 || p.Reason == "" {
			t.Errorf("problem without its place or reason: %+v", p)
		}
	}
}

// TestNoCitations: no code, script or doc of the repository cites a file
// outside it, an issue number or change history.
func TestNoCitations(t *testing.T) {
	found, err := Citations(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range found {
		t.Error(c)
	}
}

// TestCitationsFound: each kind of citation is found, and a round trip is
// not history.
func TestCitationsFound(t *testing.T) {
	dir := t.TempDir()
	text := "// See DESIGN" + ".md section 7 and ../" + "shared/x (or " + "shared/y).\n" +
		"the fix of Issue " + "17 item 3; changed this " + "round\n" +
		"the OSDM calls and this round trip\n"
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	found, err := Citations(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 10 {
		t.Fatalf("found %d citations, want 5 in each file: %v", len(found), found)
	}
	for _, c := range found {
		if c.Line == 3 {
			t.Errorf("a round trip taken for history: %v", c)
		}
	}
}
