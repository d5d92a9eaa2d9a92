package osdm

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProblemCatalogue: every code is listed once, spelt urn:uic:problem:,
// with a title and statuses of errors.
func TestProblemCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range ProblemCatalogue {
		if seen[k.Code] {
			t.Errorf("%s listed twice", k.Code)
		}
		seen[k.Code] = true
		if !strings.HasPrefix(k.Code, ProblemCodePrefix) || k.Title == "" || len(k.Statuses) == 0 {
			t.Errorf("%+v", k)
		}
		for _, s := range k.Statuses {
			if s < 400 || s > 599 {
				t.Errorf("%s: status %d", k.Code, s)
			}
		}
	}
	if ProblemStatus(CodeBookingNotFound) != http.StatusNotFound || ProblemTitle(CodeBookingNotFound) == "" {
		t.Error("lookup of BOOKING_NOT_FOUND")
	}
	if got := ProblemType(CodeOfferNoResults); got != "https://osdm.io/errors/offer-no-results" {
		t.Errorf("type %q", got)
	}
}

// TestProvidersUseCatalogue: every problem the providers build names a
// code of the catalogue with one of its statuses, and no package but osdm
// spells a problem code.
func TestProvidersUseCatalogue(t *testing.T) {
	statuses := map[string]int{}
	for name, v := range map[string]int{
		"StatusBadRequest": 400, "StatusUnauthorized": 401, "StatusForbidden": 403, "StatusNotFound": 404,
		"StatusMethodNotAllowed": 405, "StatusRequestTimeout": 408, "StatusConflict": 409, "StatusGone": 410,
		"StatusPreconditionFailed": 412, "StatusTooManyRequests": 429, "StatusRequestEntityTooLarge": 413,
		"StatusUnsupportedMediaType": 415, "StatusUnprocessableEntity": 422, "StatusInternalServerError": 500,
		"StatusNotImplemented": 501, "StatusBadGateway": 502, "StatusServiceUnavailable": 503, "StatusGatewayTimeout": 504,
	} {
		statuses[name] = v
	}
	consts := catalogueConstants(t)
	for _, dir := range []string{"../osdmlegacy", "../osdmsandbox", "../tokenauth", "../converter"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			if strings.Contains(string(src), `"urn:uic:problem:`) {
				t.Errorf("%s spells a problem code; the catalogue in osdm is their one place", file)
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 3 {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "NewProblem" {
					return true
				}
				st, ok1 := call.Args[0].(*ast.SelectorExpr)
				cd, ok2 := call.Args[1].(*ast.SelectorExpr)
				if !ok1 || !ok2 || !isIdent(st.X, "http") || !isIdent(cd.X, "osdm") {
					return true // a status or code computed at run time
				}
				status, okS := statuses[st.Sel.Name]
				code, okC := consts[cd.Sel.Name]
				if !okS || !okC {
					t.Errorf("%s: NewProblem(%s, %s) names no catalogue code or known status", file, st.Sel.Name, cd.Sel.Name)
					return true
				}
				if !ProblemAllowsStatus(code, status) {
					t.Errorf("%s: %s with status %d, which the catalogue does not list for it", file, cd.Sel.Name, status)
				}
				return true
			})
		}
	}
}

// catalogueConstants maps the names of this package's Code constants to
// their values.
func catalogueConstants(t *testing.T) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), "problem_catalogue.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					out[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	if len(out) < 30 {
		t.Fatalf("read %d codes", len(out))
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
