package timetable

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"io/fs"
	"strings"
)

// table reads one GTFS file: CSV with a header row whose columns are
// found by name, in any order, with an optional UTF-8 byte order mark.
// Unknown columns are ignored.
type table struct {
	file string
	c    io.Closer
	r    *csv.Reader
	cols map[string]int
	rec  []string
	line int
	// width is one past the rightmost named column.
	width int
	// failed is the first error: a required column missing from the
	// header, or a row that could not be read. next stops at it; err
	// returns it.
	failed error
}

// openTable opens name in fsys and reads its header. A missing file is
// (nil, nil) when optional, an error otherwise.
func openTable(fsys fs.FS, name string, optional bool) (*table, error) {
	f, err := fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if optional {
				return nil, nil
			}
			return nil, feedErr(name, 0, "", "file missing from the feed")
		}
		return nil, feedErr(name, 0, "", "cannot open: %v", err)
	}
	t, err := newTable(name, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	t.c = f
	return t, nil
}

// newTable reads the header of r, a GTFS file called name.
func newTable(name string, r io.Reader) (*table, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	t := &table{file: name, r: cr, cols: map[string]int{}}
	hdr, err := cr.Read()
	if err == io.EOF {
		return nil, feedErr(name, 1, "", "empty file: no header row")
	}
	if err != nil {
		return nil, t.csvErr(err)
	}
	for i, h := range hdr {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, dup := t.cols[h]; dup {
			return nil, feedErr(name, 1, h, "column named twice in the header")
		}
		t.cols[h] = i
		t.width = i + 1
	}
	t.line = 1
	return t, nil
}

func (t *table) close() {
	if t != nil && t.c != nil {
		t.c.Close()
	}
}

// col is the index of a required column. When the header lacks it, col
// is -1 and the table fails (unless it already has): next reads no row
// and err names the column. A reader thus takes all its columns, then
// loops over the rows, then checks err once.
func (t *table) col(name string) int {
	i, ok := t.cols[name]
	if !ok {
		if t.failed == nil {
			t.failed = feedErr(t.file, 1, name, "required column missing from the header")
		}
		return -1
	}
	return i
}

// optCol is the index of an optional column, -1 when absent.
func (t *table) optCol(name string) int {
	if i, ok := t.cols[name]; ok {
		return i
	}
	return -1
}

// next reads the next row, for get and errf; false at the end of the file
// or once the table has failed (see err), as in
//
//	for tb.next() { ... }
//	if err := tb.err(); err != nil { ... }
//
// Blank lines are skipped (encoding/csv does); a row with fewer fields
// than the header fails the table.
func (t *table) next() bool {
	if t.failed != nil {
		return false
	}
	rec, err := t.r.Read()
	if err == io.EOF {
		return false
	}
	if err != nil {
		t.failed = t.csvErr(err)
		return false
	}
	t.line, _ = t.r.FieldPos(0)
	if len(rec) < t.width {
		// Name the first named column the row does not reach.
		first, field := t.width, ""
		for name, i := range t.cols {
			if i >= len(rec) && i < first {
				first, field = i, name
			}
		}
		t.failed = feedErr(t.file, t.line, field, "row has %d fields, the header %d", len(rec), t.width)
		return false
	}
	t.rec = rec
	return true
}

// err is why next stopped early: the first required column missing from
// the header, or the row that could not be read. Nil at the end of the file.
func (t *table) err() error {
	return t.failed
}

// uniqueID is the value at column c of the current row, a column that
// gives each row its own id: an error when it is empty or when seen (the
// ids of the rows before) has it already.
func uniqueID[V any](t *table, c int, seen map[string]V) (string, error) {
	id := t.get(c)
	if id == "" {
		return "", t.errf(c, "empty")
	}
	if _, dup := seen[id]; dup {
		return "", t.errf(c, "%q appears twice", id)
	}
	return id, nil
}

// get is the trimmed value at column i of the current row, "" for an
// absent column (i < 0) or a short row.
func (t *table) get(i int) string {
	if i < 0 || i >= len(t.rec) {
		return ""
	}
	return strings.TrimSpace(t.rec[i])
}

// errf is a FeedError on the current line in the column at index i.
func (t *table) errf(i int, format string, args ...any) *FeedError {
	return feedErr(t.file, t.line, t.name(i), format, args...)
}

func (t *table) name(i int) string {
	for n, j := range t.cols {
		if j == i {
			return n
		}
	}
	return ""
}

func (t *table) csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return feedErr(t.file, pe.Line, "", "malformed CSV (column %d): %v", pe.Column, pe.Err)
	}
	return feedErr(t.file, t.line+1, "", "read: %v", err)
}
