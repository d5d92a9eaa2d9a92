package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

// JSONLines reads a file of one JSON value a line (Caddy's JSON log, a
// probe's record) as values of T. A last line not yet ended by a newline
// is left out: a writer may be in the middle of it. A line that does not
// decode fails the test.
func JSONLines[T any](t testing.TB, path string) []T {
	t.Helper()
	data := ReadFiles(t, path)
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	var values []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: line %q: %v", path, sc.Text(), err)
		}
		values = append(values, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return values
}
