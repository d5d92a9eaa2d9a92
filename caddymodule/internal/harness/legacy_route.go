package harness

import "strings"

// LegacyRoute is the route of a site that answers OSDM under prefix
// (/osdm: the paths /osdm/*, the prefix stripped) with osdm_legacy in
// front of the legacy reservation system at legacyAddr. options are
// osdm_legacy's subdirectives, one an element, partner first; an empty
// one is left out, and one may hold more lines, each after "\n\t\t\t".
func LegacyRoute(prefix, legacyAddr string, options ...string) string {
	var b strings.Builder
	b.WriteString("\troute " + prefix + "/* {\n\t\turi strip_prefix " + prefix + "\n\t\tosdm_legacy {\n")
	for _, o := range options {
		if o = strings.TrimPrefix(o, "\n\t\t\t"); o != "" {
			b.WriteString("\t\t\t" + o + "\n")
		}
	}
	b.WriteString("\t\t}\n\t\treverse_proxy " + legacyAddr + "\n\t}\n")
	return b.String()
}
