package osdmspec

import (
	"os"
	"strings"
	"testing"
)

// DocOperations reads the table of the "## Every OSDM operation" section
// of a Markdown file (docs/mapping.md): for each row, "METHOD path" (its
// first cell, without backquotes) -> the cells after the operationId, in
// the order of the header's provider columns. header is the header row's
// provider column names, e.g. ["`osdm_legacy`", "`osdm_sandbox`"].
func DocOperations(tb testing.TB, file string) (header []string, rows map[string][]string) {
	tb.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Every OSDM operation\n")
	if !ok {
		tb.Fatalf("%s has no section \"Every OSDM operation\"", file)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	rows = map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) < 3 {
			tb.Errorf("%s: row %q has too few cells", file, line)
			continue
		}
		if header == nil {
			header = cells[2:]
			continue
		}
		key := strings.Trim(cells[0], "`")
		if _, dup := rows[key]; dup {
			tb.Errorf("%s: %s listed twice", file, key)
		}
		rows[key] = cells[2:]
	}
	if len(rows) == 0 {
		tb.Fatalf("%s: the operations table is empty", file)
	}
	return header, rows
}

// CheckDocOperations holds the table of DocOperations to a provider's
// router: every operation of the spec (3.9, and POST /trips-collections of
// 3.10) has a row, no other row is there, and the provider's column says
// 501 exactly where served(method, path template) is false.
func CheckDocOperations(tb testing.TB, file, column string, served func(method, path string) bool) {
	tb.Helper()
	header, rows := DocOperations(tb, file)
	col := -1
	for i, h := range header {
		if h == column {
			col = i
		}
	}
	if col < 0 {
		tb.Fatalf("%s: no column %s in %v", file, column, header)
	}
	ops := readOperations(tb, V39)
	for _, o := range readOperations(tb, V310) {
		if o.method == "POST" && o.path == "/trips-collections" {
			ops = append(ops, o)
		}
	}
	for _, op := range ops {
		key := op.method + " " + op.path
		cells, ok := rows[key]
		if !ok {
			tb.Errorf("%s does not list %s", file, key)
			continue
		}
		delete(rows, key)
		if says501, isServed := strings.HasPrefix(cells[col], "501"), served(op.method, op.path); says501 == isServed {
			tb.Errorf("%s: %s: %s says %q, served: %v", file, key, column, cells[col], isServed)
		}
	}
	for key := range rows {
		tb.Errorf("%s lists %s, which is no operation of the spec", file, key)
	}
}
