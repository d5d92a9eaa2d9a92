package osdmspec

import (
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Version names one of the two OSDM specifications in testdata/.
type Version string

const (
	// V39 is OSDM 3.9.0, the bundled single-file release
	// (testdata/OSDM-online-api-v3.9.0.bundled.yml).
	V39 Version = "3.9.0"
	// V310 is the modular tree of tag v3.10 (testdata/v3.10/), the only
	// version with Problem.alternativeSystemProposals.
	V310 Version = "3.10"
)

// specFiles holds the specifications. The all: prefix is needed because the
// v3.10 tree has files starting with "_" (schemas/_common.yml), which a plain
// embed pattern silently skips. Embedding (rather than reading from the
// working directory) lets tests of any package use this helper.
//
//go:embed all:testdata
var specFiles embed.FS

// rootFiles maps each version to its root document inside specFiles.
var rootFiles = map[Version]string{
	V39:  "testdata/OSDM-online-api-v3.9.0.bundled.yml",
	V310: "testdata/v3.10/OSDM-online-api.yml",
}

// spec is one loaded, normalised specification with its router.
type spec struct {
	doc        *openapi3.T
	router     routers.Router
	schemaOpts []openapi3.SchemaValidationOption
	// schemas holds every named schema, including those of the v3.10 tree
	// that its root does not list under components (AlternativeSystemProposal).
	schemas map[string][]*openapi3.Schema
}

// loaded caches each version: loading the v3.10 tree takes seconds, so it
// happens at most once per test process.
var loaded = map[Version]*struct {
	once sync.Once
	spec *spec
	err  error
}{
	V39:  {},
	V310: {},
}

// load returns the specification of version v, loading it on first use.
func load(v Version) (*spec, error) {
	entry, ok := loaded[v]
	if !ok {
		return nil, fmt.Errorf("osdmspec: unknown version %q (use V39 or V310)", v)
	}
	entry.once.Do(func() { entry.spec, entry.err = loadSpec(v) })
	return entry.spec, entry.err
}

func loadSpec(v Version) (*spec, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = readEmbedded
	doc, err := loader.LoadFromFile(rootFiles[v])
	if err != nil {
		return nil, fmt.Errorf("osdmspec: loading OSDM %s: %w", v, err)
	}
	// The spec's servers are vendor sandboxes (https://host/api...). Without
	// servers the router matches the bare paths of the spec ("/offers"), which
	// is what callers pass.
	doc.Servers = nil
	schemas := normaliseInheritance(doc)
	registerFormats(doc)
	// Example validation is off because the spec itself has invalid examples
	// (e.g. houseNumber: 7 for a string); they say nothing about our JSON.
	router, err := legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
	if err != nil {
		return nil, fmt.Errorf("osdmspec: building router for OSDM %s: %w", v, err)
	}
	return &spec{doc: doc, router: router, schemaOpts: doc.GetSchemaValidationOptions(), schemas: schemas}, nil
}

// readEmbedded serves the loader's file reads from specFiles only, so a
// $ref can never reach the network or the host file system.
func readEmbedded(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	if u.Scheme != "" || u.Host != "" {
		return nil, fmt.Errorf("osdmspec: external reference %q is not part of the embedded spec", u)
	}
	return fs.ReadFile(specFiles, path.Clean(u.Path))
}
