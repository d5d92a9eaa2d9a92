package osdmspec

import (
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// normaliseInheritance rewrites the spec's polymorphic types into a form a
// JSON Schema validator can check, and returns every named schema (see
// namedSchemas) for lookups by name.
//
// OSDM models inheritance the OpenAPI 3.0 way: a base (PlaceRef,
// AbstractOfferPart, AbstractBookingPart, Place, ...) with a discriminator
// "objectType", and subtypes written as allOf [base, own properties]. But
// every part has additionalProperties: false, which under plain JSON Schema
// (what kin-openapi applies) makes the spec unsatisfiable: the base rejects
// the subtype's properties and the subtype's part rejects objectType. And a
// discriminator without oneOf is ignored, so a value given where the base is
// expected is checked against the base alone.
//
// So, keeping every constraint of the spec:
//   - each named schema that is allOf of object schemas becomes one object
//     with the union of properties and required fields, closed
//     (additionalProperties: false) if any part was closed;
//   - each base with a discriminator and subtypes becomes oneOf its
//     (flattened) subtypes, selected by objectType through an explicit
//     mapping (objectType is the subtype's schema name: the spec's implicit
//     mapping). An unknown or missing objectType is an error.
func normaliseInheritance(doc *openapi3.T) map[string][]*openapi3.Schema {
	byName := namedSchemas(doc)
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)

	// Phase 1 reads originals only: nothing is mutated until phase 2.
	flat := make(map[*openapi3.Schema]*openapi3.Schema)
	for _, name := range names {
		for _, s := range byName[name] {
			if isObjectAllOf(s) {
				flatten(s, flat)
			}
		}
	}
	unions := make(map[*openapi3.Schema]*openapi3.Schema)
	for _, baseName := range names {
		var subtypes []string
		for _, subName := range names {
			if extends(byName[subName][0], baseName) {
				subtypes = append(subtypes, subName)
			}
		}
		if len(subtypes) == 0 {
			continue
		}
		for _, base := range byName[baseName] {
			if base.Discriminator == nil || len(base.OneOf) > 0 || len(base.AnyOf) > 0 {
				continue
			}
			union := &openapi3.Schema{
				Description: base.Description,
				Nullable:    base.Nullable,
				Discriminator: &openapi3.Discriminator{
					PropertyName: base.Discriminator.PropertyName,
					Mapping:      map[string]openapi3.MappingRef{},
				},
			}
			for _, subName := range subtypes {
				sub := byName[subName][0]
				if f, ok := flat[sub]; ok {
					sub = f
				}
				ref := "#/components/schemas/" + subName
				union.OneOf = append(union.OneOf, &openapi3.SchemaRef{Ref: ref, Value: sub})
				union.Discriminator.Mapping[subName] = openapi3.MappingRef{Ref: ref}
			}
			unions[base] = union
		}
	}

	// Phase 2: replace in place, so every $ref already resolved to these
	// pointers (request bodies, properties, array items) sees the change.
	for s, f := range flat {
		*s = *f
	}
	for s, u := range unions {
		*s = *u
	}
	return byName
}

// isObjectAllOf reports whether s is allOf made only of object schemas, the
// shape that can be merged into one object.
func isObjectAllOf(s *openapi3.Schema) bool {
	if len(s.AllOf) == 0 || len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return false
	}
	for _, part := range s.AllOf {
		p := part.Value
		if p == nil || !(p.Type.Is(openapi3.TypeObject) || len(p.Properties) > 0 || isObjectAllOf(p)) {
			return false
		}
	}
	return true
}

// flatten merges the allOf parts of s (recursively) into one object schema,
// memoised in flat.
func flatten(s *openapi3.Schema, flat map[*openapi3.Schema]*openapi3.Schema) *openapi3.Schema {
	if f, ok := flat[s]; ok {
		return f
	}
	out := *s
	out.AllOf = nil
	out.Type = &openapi3.Types{openapi3.TypeObject}
	out.Properties = openapi3.Schemas{}
	out.Required = nil
	closed := false
	merge := func(p *openapi3.Schema) {
		for k, v := range p.Properties {
			out.Properties[k] = v
		}
		for _, r := range p.Required {
			if !slices.Contains(out.Required, r) {
				out.Required = append(out.Required, r)
			}
		}
		closed = closed || (p.AdditionalProperties.Has != nil && !*p.AdditionalProperties.Has)
	}
	merge(s)
	for _, part := range s.AllOf {
		p := part.Value
		if isObjectAllOf(p) {
			p = flatten(p, flat)
		}
		merge(p)
	}
	// The merged object is a concrete subtype: it selects nothing itself.
	out.Discriminator = nil
	if closed {
		no := false
		out.AdditionalProperties = openapi3.AdditionalProperties{Has: &no}
	}
	flat[s] = &out
	return &out
}

// extends reports whether sub lists the schema named baseName directly in
// its allOf.
func extends(sub *openapi3.Schema, baseName string) bool {
	for _, part := range sub.AllOf {
		if part.Ref != "" && strings.HasSuffix(part.Ref, "/"+baseName) {
			return true
		}
	}
	return false
}
