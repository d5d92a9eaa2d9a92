package timetable

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func testTable(t *testing.T, text string) *table {
	t.Helper()
	tb, err := newTable("x.txt", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// rows reads tb to the end as "value of column a@line" for each row.
func rows(tb *table, a int) string {
	var got []string
	for tb.next() {
		got = append(got, tb.get(a)+"@"+strconv.Itoa(tb.line))
	}
	return strings.Join(got, " ")
}

// TestTableRows checks the row loop every reader runs: each row once, in
// order, on its own line, and err nil at the end; a row that cannot be
// read ends the loop, err names it and no later row is read; a required
// column missing from the header ends the loop before any row.
func TestTableRows(t *testing.T) {
	t.Run("all rows", func(t *testing.T) {
		tb := testTable(t, "a,b\n1,x\n\n2,y\n3,z\n")
		if got := rows(tb, tb.col("a")); got != "1@2 2@4 3@5" {
			t.Fatalf("rows %q, want 1@2 2@4 3@5", got)
		}
		if err := tb.err(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("read error", func(t *testing.T) {
		tb := testTable(t, "a,b\n1,x\n2\n3,z\n")
		if got := rows(tb, tb.col("a")); got != "1@2" {
			t.Fatalf("rows %q, want 1@2 only", got)
		}
		var fe *FeedError
		if err := tb.err(); !errors.As(err, &fe) || fe.File != "x.txt" || fe.Line != 3 || fe.Field != "b" || !strings.Contains(fe.Msg, "fields") {
			t.Fatalf("err %v, want x.txt line 3, field b: a short row", err)
		}
		if tb.next() {
			t.Fatal("next read on after the error")
		}
	})

	t.Run("missing columns", func(t *testing.T) {
		tb := testTable(t, "a,b\n1,x\n")
		c, d, b := tb.col("c"), tb.col("d"), tb.col("b")
		if c != -1 || d != -1 || b != 1 {
			t.Fatalf("col c %d, d %d, b %d; want -1, -1, 1", c, d, b)
		}
		if got := rows(tb, b); got != "" {
			t.Fatalf("rows %q, want none", got)
		}
		var fe *FeedError
		if err := tb.err(); !errors.As(err, &fe) || fe.Line != 1 || fe.Field != "c" || !strings.Contains(fe.Msg, "required column") {
			t.Fatalf("err %v, want the first missing column, c", err)
		}
	})
}

// TestUniqueID checks the id column check of stops, calendar and trips: a
// new id is given back, an empty one or one seen before is an error on
// that row and column.
func TestUniqueID(t *testing.T) {
	tb := testTable(t, "name,id\nx,A\ny,\nz,A\n")
	id := tb.col("id")
	seen := map[string]struct{}{}
	var got []string
	for tb.next() {
		v, err := uniqueID(tb, id, seen)
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		seen[v] = struct{}{}
		got = append(got, v)
	}
	want := []string{"A", "gtfs x.txt line 3, field id: empty", `gtfs x.txt line 4, field id: "A" appears twice`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}
