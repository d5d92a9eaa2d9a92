package osdmspec

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// namedSchemas finds every schema object reachable from doc and groups the
// ones reached through a $ref by the referenced name (the last segment of the
// ref: "#/components/schemas/PlaceRef", "./place.yml#/PlaceRef" and
// "#/PlaceRef" all name PlaceRef). Component schemas count under their
// component name.
//
// The loader of kin-openapi resolves the same $ref of the modular v3.10
// tree to several distinct *Schema copies (one per referencing file), so a
// change to "the" PlaceRef must be applied to all of them.
func namedSchemas(doc *openapi3.T) map[string][]*openapi3.Schema {
	w := &schemaWalker{seen: map[*openapi3.Schema]bool{}, byName: map[string][]*openapi3.Schema{}, named: map[*openapi3.Schema]bool{}}
	if c := doc.Components; c != nil {
		for name, ref := range c.Schemas {
			if ref != nil && ref.Value != nil {
				w.name(name, ref.Value)
			}
			w.ref(ref)
		}
		for _, p := range c.Parameters {
			if p != nil {
				w.parameter(p.Value)
			}
		}
		for _, h := range c.Headers {
			if h != nil && h.Value != nil {
				w.parameter(&h.Value.Parameter)
			}
		}
		for _, b := range c.RequestBodies {
			if b != nil && b.Value != nil {
				w.content(b.Value.Content)
			}
		}
		for _, r := range c.Responses {
			w.response(r)
		}
	}
	if doc.Paths != nil {
		for _, item := range doc.Paths.Map() {
			for _, p := range item.Parameters {
				if p != nil {
					w.parameter(p.Value)
				}
			}
			for _, op := range item.Operations() {
				for _, p := range op.Parameters {
					if p != nil {
						w.parameter(p.Value)
					}
				}
				if op.RequestBody != nil && op.RequestBody.Value != nil {
					w.content(op.RequestBody.Value.Content)
				}
				if op.Responses != nil {
					for _, r := range op.Responses.Map() {
						w.response(r)
					}
				}
			}
		}
	}
	return w.byName
}

type schemaWalker struct {
	seen   map[*openapi3.Schema]bool
	named  map[*openapi3.Schema]bool
	byName map[string][]*openapi3.Schema
}

func (w *schemaWalker) name(name string, s *openapi3.Schema) {
	if w.named[s] {
		return
	}
	w.named[s] = true
	w.byName[name] = append(w.byName[name], s)
}

func (w *schemaWalker) response(r *openapi3.ResponseRef) {
	if r == nil || r.Value == nil {
		return
	}
	w.content(r.Value.Content)
	for _, h := range r.Value.Headers {
		if h != nil && h.Value != nil {
			w.parameter(&h.Value.Parameter)
		}
	}
}

func (w *schemaWalker) parameter(p *openapi3.Parameter) {
	if p == nil {
		return
	}
	w.ref(p.Schema)
	w.content(p.Content)
}

func (w *schemaWalker) content(c openapi3.Content) {
	for _, mt := range c {
		if mt != nil {
			w.ref(mt.Schema)
		}
	}
}

func (w *schemaWalker) ref(r *openapi3.SchemaRef) {
	if r == nil || r.Value == nil {
		return
	}
	if i := strings.LastIndex(r.Ref, "/"); r.Ref != "" && i >= 0 && strings.Contains(r.Ref, "#") {
		w.name(r.Ref[i+1:], r.Value)
	}
	s := r.Value
	if w.seen[s] {
		return
	}
	w.seen[s] = true
	for _, p := range s.Properties {
		w.ref(p)
	}
	w.ref(s.Items)
	w.ref(s.Not)
	w.ref(s.AdditionalProperties.Schema)
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, p := range group {
			w.ref(p)
		}
	}
}
