package osdmsandbox

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSpecOperations: specOperations lists exactly the paths and methods
// of the bundled 3.9 spec (plus POST /trips-collections of 3.10), so
// that every operation of the spec is answered 501 or served, never 404.
func TestSpecOperations(t *testing.T) {
	f, err := os.Open("../internal/osdmspec/testdata/OSDM-online-api-v3.9.0.bundled.yml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pathLine := regexp.MustCompile(`^  (/\S*):$`)
	methodLine := regexp.MustCompile(`^    (get|put|post|patch|delete|head|options):$`)
	want := map[string][]string{"/trips-collections": {"POST"}}
	var current string
	inPaths := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "paths:":
			inPaths = true
		case inPaths && len(line) > 0 && line[0] != ' ':
			inPaths = false
		case !inPaths:
		case pathLine.MatchString(line):
			current = pathLine.FindStringSubmatch(line)[1]
		case methodLine.MatchString(line):
			want[current] = append(want[current], strings.ToUpper(methodLine.FindStringSubmatch(line)[1]))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 60 {
		t.Fatalf("read only %d paths of the spec", len(want))
	}
	got := map[string][]string{}
	for _, op := range specOperations {
		if _, dup := got[op.path]; dup {
			t.Errorf("%s listed twice", op.path)
		}
		got[op.path] = op.methods
	}
	for path, methods := range want {
		slices.Sort(methods)
		have := slices.Clone(got[path])
		slices.Sort(have)
		if !slices.Equal(have, methods) {
			t.Errorf("%s: table has %v, spec %v", path, have, methods)
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("%s is not a path of the spec", path)
		}
	}
}

// TestSpecMethodsMatch: the templates match real paths segment by segment.
func TestSpecMethodsMatch(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"bookings/b-1/passengers/pax-1", []string{"GET", "PATCH"}},
		{"bookings/b-1/purchaser", []string{"GET", "PATCH", "POST"}},
		{"fulfillments/f-1", []string{"GET", "PATCH"}},
		{"bookings//passengers/pax-1", nil},
		{"bookings/b-1/tickets", nil},
	} {
		got, _ := specMethods(strings.Split(tc.path, "/"))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.path, got, tc.want)
		}
	}
}
