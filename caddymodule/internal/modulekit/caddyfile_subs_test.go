package modulekit

import (
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestSubs: the shared subdirectives take their value and refuse what is
// out of range, naming the subdirective and the line.
func TestSubs(t *testing.T) {
	var (
		dur      caddy.Duration
		n, p     int
		size     int64
		str, one string
		file     string
		column   string
		flag     bool
		changes  *int
	)
	table := Table{Subs: []Sub{
		Duration("dur", &dur), Int("n", &n, 1, 10), Positive("p", &p), Size("size", &size, 1<<20, "1MiB"),
		String("str", &str), OneOf("one", &one, "x", "y", "z"), Timetable(&file, &column), Flag("flag", &flag),
		MaxChanges(&changes, 2),
	}}
	good := "t {\n\tdur 90s\n\tn 7\n\tp 12\n\tsize 64KiB\n\tstr s\n\tone y\n\ttimetable f.zip stop_id\n\tflag\n\tmax_changes 0\n}"
	if _, err := table.Directive(caddyfile.NewTestDispenser(good)); err != nil {
		t.Fatal(err)
	}
	if time.Duration(dur) != 90*time.Second || n != 7 || p != 12 || size != 64<<10 || str != "s" || one != "y" || file != "f.zip" || column != "stop_id" || !flag {
		t.Errorf("read %v %d %d %d %q %q %q %q %v", dur, n, p, size, str, one, file, column, flag)
	}
	if changes == nil || *changes != 0 {
		t.Errorf("max_changes 0 read as %v, want a pointer to 0 (not the default)", changes)
	}
	for in, want := range map[string]string{
		"dur 0s":            `dur "0s": not a positive duration (it must be positive`,
		"dur soon":          `dur "soon": not a positive duration: time: invalid`,
		"n 70":              `n "70" must be a number 1..10`,
		"p 0":               `p "0": not a positive number`,
		"size 2MiB":         `size "2MiB": not a size from 1B to 1MiB`,
		"one w":             `one "w": want x, y or z`,
		"timetable f.zip x": `station code "x": want stop_code or stop_id`,
		"max_changes 3":     `max_changes "3": want 0 (direct trains only) to 2`,
		"max_changes -1":    `max_changes "-1": want 0 (direct trains only) to 2`,
	} {
		_, err := table.Directive(caddyfile.NewTestDispenser("t {\n\t" + in + "\n}"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "at Testfile:2") {
			t.Errorf("%s: %v, want %s at Testfile:2", in, err, want)
		}
	}
}

// TestPutOnce: the first entry of a key makes the map and is kept; the
// second is refused, naming the subdirective and the key, and changes
// nothing.
func TestPutOnce(t *testing.T) {
	var m map[string]int
	if err := PutOnce(&m, "reason", "STRIKE", 5); err != nil || m["STRIKE"] != 5 {
		t.Fatalf("first: %v, map %v", err, m)
	}
	err := PutOnce(&m, "reason", "STRIKE", 6)
	if err == nil || err.Error() != "reason STRIKE already specified" || m["STRIKE"] != 5 {
		t.Fatalf("second: %v, map %v", err, m)
	}
}

// TestValues: Values takes a list and refuses an empty value at its line.
func TestValues(t *testing.T) {
	var got []string
	table := Table{Subs: []Sub{Values("aud", &got)}}
	if _, err := table.Directive(caddyfile.NewTestDispenser("t {\n\taud a b\n}")); err != nil || strings.Join(got, ",") != "a,b" {
		t.Fatalf("read %q: %v", got, err)
	}
	_, err := table.Directive(caddyfile.NewTestDispenser("t {\n\taud a \"\"\n}"))
	if err == nil || err.Error() != `aud: value 2 is empty (""), at Testfile:2` {
		t.Errorf("empty value: %v", err)
	}
}
