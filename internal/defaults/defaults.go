// Package defaults fills a zero config setting with its default and checks
// the bounds the sandboxes' settings share, with the same error texts in
// both: "capacity 20000 must be 1..10000", "retention 10ms must be at least
// 1s".
package defaults

import (
	"fmt"
	"time"
)

// Count sets *n to def when it is zero, then wants it 1..max:
// "<name> <n> must be 1..<max>".
func Count(name string, n *int, def, max int) error {
	if *n == 0 {
		*n = def
	}
	if *n < 1 || *n > max {
		return fmt.Errorf("%s %d must be 1..%d", name, *n, max)
	}
	return nil
}

// Duration sets *d to def when it is zero, then wants it at least a
// second: "<name> <d> must be at least 1s".
func Duration(name string, d *time.Duration, def time.Duration) error {
	if *d == 0 {
		*d = def
	}
	if *d < time.Second {
		return fmt.Errorf("%s %s must be at least 1s", name, *d)
	}
	return nil
}
