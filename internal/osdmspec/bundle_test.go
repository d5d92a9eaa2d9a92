package osdmspec

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestBundledV310IsTheTree: the v3.10 tree loaded as readEmbedded bundles
// it has the same named schemas, and the same request and response
// schemas on every operation, as the tree loaded file by file (the slow
// way), both after normaliseInheritance.
func TestBundledV310IsTheTree(t *testing.T) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		return fs.ReadFile(specFiles, path.Clean(u.Path))
	}
	tree, err := loader.LoadFromFile(rootFiles[V310])
	if err != nil {
		t.Fatal(err)
	}
	tree.Servers = nil
	treeSchemas := normaliseInheritance(tree)
	bundled, err := load(V310)
	if err != nil {
		t.Fatal(err)
	}

	shapes := func(ss []*openapi3.Schema) map[string]bool {
		m := map[string]bool{}
		for _, s := range ss {
			m[schemaShape(s, 4)] = true
		}
		return m
	}
	for name, ss := range treeSchemas {
		if want, got := shapes(ss), shapes(bundled.schemas[name]); !sameKeys(want, got) {
			t.Errorf("schema %s: %d forms in the tree, %d bundled, not the same", name, len(want), len(got))
		}
	}
	for name := range bundled.schemas {
		if _, ok := treeSchemas[name]; !ok {
			t.Errorf("schema %s is named only in the bundle", name)
		}
	}
	ops := 0
	for p, item := range tree.Paths.Map() {
		bitem := bundled.doc.Paths.Value(p)
		if bitem == nil {
			t.Errorf("path %s missing from the bundle", p)
			continue
		}
		for m, op := range item.Operations() {
			bop := bitem.GetOperation(m)
			if bop == nil {
				t.Errorf("%s %s missing from the bundle", m, p)
				continue
			}
			ops++
			if op.RequestBody != nil {
				for ct, mt := range op.RequestBody.Value.Content {
					if bop.RequestBody == nil || bop.RequestBody.Value.Content[ct] == nil ||
						schemaShape(mt.Schema.Value, 6) != schemaShape(bop.RequestBody.Value.Content[ct].Schema.Value, 6) {
						t.Errorf("%s %s: request body %s differs", m, p, ct)
					}
				}
			}
			for code, r := range op.Responses.Map() {
				br := bop.Responses.Value(code)
				for ct, mt := range r.Value.Content {
					if br == nil || br.Value.Content[ct] == nil ||
						schemaShape(mt.Schema.Value, 6) != schemaShape(br.Value.Content[ct].Schema.Value, 6) {
						t.Errorf("%s %s: response %s %s differs", m, p, code, ct)
					}
				}
			}
		}
	}
	if ops < 50 || len(treeSchemas) < 300 {
		t.Errorf("compared only %d operations and %d schemas", ops, len(treeSchemas))
	}
}

// schemaShape prints what validation reads of s, depth levels deep.
func schemaShape(s *openapi3.Schema, depth int) string {
	if s == nil {
		return "nil"
	}
	if depth == 0 {
		return "…"
	}
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	unum := func(p *uint64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{type=%v format=%s required=%v enum=%v min=%s max=%s len=%d..%s items=%d..%s unique=%v pattern=%q nullable=%v ro=%v wo=%v",
		s.Type, s.Format, s.Required, s.Enum, num(s.Min), num(s.Max), s.MinLength, unum(s.MaxLength), s.MinItems, unum(s.MaxItems),
		s.UniqueItems, s.Pattern, s.Nullable, s.ReadOnly, s.WriteOnly)
	if s.Discriminator != nil {
		fmt.Fprintf(&b, " discriminator=%s", s.Discriminator.PropertyName)
	}
	if ap := s.AdditionalProperties; ap.Has != nil || ap.Schema != nil {
		b.WriteString(" additional=")
		if ap.Has != nil {
			fmt.Fprint(&b, *ap.Has)
		}
		if ap.Schema != nil {
			b.WriteString(schemaShape(ap.Schema.Value, depth-1))
		}
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, " %s:%s", n, schemaShape(s.Properties[n].Value, depth-1))
	}
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		b.WriteString(" [")
		for _, r := range group {
			b.WriteString(schemaShape(r.Value, depth-1))
		}
		b.WriteString("]")
	}
	if s.Items != nil {
		b.WriteString(" items:" + schemaShape(s.Items.Value, depth-1))
	}
	b.WriteString("}")
	return b.String()
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
