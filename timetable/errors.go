package timetable

import "fmt"

// FeedError is a fault in a GTFS feed: the file, the line (1 is the header;
// 0 when the fault is not on one line, such as a missing file) and the
// field (a column name) where it is, and what is wrong.
type FeedError struct {
	// File is the feed file, e.g. "stops.txt".
	File string
	// Line is the 1-based line of the file the fault is on (the header is
	// line 1), or 0 when it is about the whole file.
	Line int
	// Field is the column the fault is in, or "" when it is about a row or the file.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error reads "gtfs stops.txt line 12, field stop_code: ...".
func (e *FeedError) Error() string {
	s := "gtfs " + e.File
	if e.Line > 0 {
		s += fmt.Sprintf(" line %d", e.Line)
	}
	if e.Field != "" {
		s += ", field " + e.Field
	}
	return s + ": " + e.Msg
}

func feedErr(file string, line int, field, format string, args ...any) *FeedError {
	return &FeedError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}
