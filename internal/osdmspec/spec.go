package osdmspec

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/oasdiff/yaml"
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

// loaded caches each version: loading one takes a second or so under
// -race, so it happens at most once per test process.
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
// $ref can never reach the network or the host file system. YAML files are
// served as JSON, the v3.10 tree's bundled on the way (see convert); each
// file is converted once per process.
func readEmbedded(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	if u.Scheme != "" || u.Host != "" {
		return nil, fmt.Errorf("osdmspec: external reference %q is not part of the embedded spec", u)
	}
	name := path.Clean(u.Path)
	if cached, ok := converted.Load(name); ok {
		return cached.([]byte), nil
	}
	data, err := fs.ReadFile(specFiles, name)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(name, ".yml") {
		if data, err = convert(name, data); err != nil {
			return nil, fmt.Errorf("osdmspec: %s: %w", name, err)
		}
	}
	converted.Store(name, data)
	return data, nil
}

// converted caches readEmbedded's answer per file name.
var converted sync.Map // string -> []byte

// convert turns the YAML file name into the JSON the loader would decode
// from it (the loader tries JSON first and otherwise converts YAML itself,
// with the same library and the same DisableTimestamps: a date-like scalar
// stays a string). The files of the v3.10 tree are bundled on the way, see
// sharedRefs and inlineComponents.
func convert(name string, data []byte) ([]byte, error) {
	v, err := decodeYAML(data)
	if err != nil {
		return nil, err
	}
	root := rootFiles[V310]
	if strings.HasPrefix(name, path.Dir(root)+"/") {
		index, err := componentIndex()
		if err != nil {
			return nil, err
		}
		if name == root {
			err = inlineComponents(v, index)
		} else {
			sharedRefs(v, name, name, index)
		}
		if err != nil {
			return nil, err
		}
	}
	return json.Marshal(v)
}

// decodeYAML decodes a YAML document as the loader would.
func decodeYAML(data []byte) (any, error) {
	var v any
	_, err := yaml.Unmarshal(data, &v, yaml.DecodeOpts{DisableTimestamps: true})
	return v, err
}

// inlineComponents replaces, in the decoded v3.10 root, each component
// schema that is a $ref to the schema of the same name in a file of the
// tree with that schema itself, its $refs rewritten by sharedRefs for the
// root. The root then reads like the bundled 3.9 release: each component
// is decoded once, and a $ref to it shares it.
func inlineComponents(root any, index map[string]string) error {
	comps, _ := root.(map[string]any)["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	files := map[string]map[string]any{}
	for target, comp := range index {
		file, frag, _ := strings.Cut(target, "#")
		doc, ok := files[file]
		if !ok {
			data, err := fs.ReadFile(specFiles, file)
			if err != nil {
				return err
			}
			v, err := decodeYAML(data)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			if doc, ok = v.(map[string]any); !ok {
				return fmt.Errorf("%s: not a map of schemas", file)
			}
			files[file] = doc
		}
		schema, ok := doc[strings.TrimPrefix(frag, "/")]
		if !ok {
			return fmt.Errorf("%s has no schema %s", file, frag)
		}
		sharedRefs(schema, file, rootFiles[V310], index)
		schemas[comp] = schema
	}
	return nil
}

// sharedRefs rewrites the $refs of v, decoded from file from of the v3.10
// tree, for serving in file at: each $ref to a schema that the root lists
// under components/schemas by the same name (the root's "PlaceRef: {$ref:
// ./schemas/place.yml#/PlaceRef}") becomes a $ref to that component, and
// with at not from, any other $ref is made relative to at. The schema is
// the same one, and named the same (the ref's last segment); but the
// loader resolves a $ref into a fragment file afresh, with all the $refs
// under it, at every place it occurs, while a component of the root it
// resolves once and shares. The tree's hundreds of cross-file $refs made
// loading it take twenty seconds under -race, at the first validation of
// every test binary.
func sharedRefs(v any, from, at string, index map[string]string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			sharedRefs(e, from, at, index)
		}
	case map[string]any:
		for k, e := range x {
			ref, ok := e.(string)
			if !ok || k != "$ref" {
				sharedRefs(e, from, at, index)
				continue
			}
			file, frag, _ := strings.Cut(ref, "#")
			target := from
			if file != "" {
				target = path.Join(path.Dir(from), file)
			}
			if comp, ok := index[target+"#"+frag]; ok {
				x[k] = toRoot(at) + "#/components/schemas/" + comp
			} else if at != from {
				x[k] = relativeTo(at, target) + "#" + frag
			}
		}
	}
}

// toRoot is the relative path from file name of the v3.10 tree to its root
// document ("" from the root itself).
func toRoot(name string) string {
	root := rootFiles[V310]
	if name == root {
		return ""
	}
	rel := strings.TrimPrefix(path.Dir(name), path.Dir(root))
	return strings.Repeat("../", strings.Count(rel, "/")) + path.Base(root)
}

// relativeTo is the relative path from file at to file target, both in
// the directory of the v3.10 root or below it.
func relativeTo(at, target string) string {
	dir := path.Dir(rootFiles[V310])
	up := strings.Count(strings.TrimPrefix(path.Dir(at), dir), "/")
	return strings.Repeat("../", up) + "./" + strings.TrimPrefix(target, dir+"/")
}

// componentIndex maps "file#/Name" to Name for every component schema of
// the v3.10 root that is a $ref to a schema of that name in a file of the
// tree.
var componentIndex = sync.OnceValues(func() (map[string]string, error) {
	root := rootFiles[V310]
	data, err := fs.ReadFile(specFiles, root)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Ref string `json:"$ref"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if _, err := yaml.Unmarshal(data, &doc, yaml.DecodeOpts{DisableTimestamps: true}); err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	index := map[string]string{}
	for comp, s := range doc.Components.Schemas {
		file, frag, _ := strings.Cut(s.Ref, "#")
		if file != "" && frag == "/"+comp {
			index[path.Join(path.Dir(root), file)+"#"+frag] = comp
		}
	}
	return index, nil
})
