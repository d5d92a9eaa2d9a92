package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// adaptPhrase introduces, in the prose between two fenced blocks, a JSON
// block that shows what `caddy adapt` gives for the Caddyfile block above.
const adaptPhrase = "what `caddy adapt` gives"

// fence is one fenced code block of a Markdown file.
type fence struct {
	info   string // the info string: sh, json, ...
	line   int    // the line of the opening fence, 1-based
	body   string
	before string // the prose between the previous block and this one
}

// fences reads the fenced code blocks of a Markdown file.
func fences(path string) ([]fence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out    []fence
		cur    *fence
		prose  strings.Builder
		body   strings.Builder
		indent string
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			// A fence indented in a list item: its lines are indented as much.
			indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
			cur = &fence{info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: n, before: prose.String()}
			prose.Reset()
			body.Reset()
		case cur != nil && trimmed == "```":
			cur.body = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(strings.TrimPrefix(line, indent) + "\n")
		default:
			prose.WriteString(line + "\n")
		}
	}
	return out, sc.Err()
}

// adaptExample is one "what caddy adapt gives" pair of a doc.
type adaptExample struct {
	where     string // file:line of the JSON block
	caddyfile string
	json      string
}

// adaptExamples finds every JSON block of docs/ and the README that the
// prose before it introduces as what `caddy adapt` gives, with the
// Caddyfile block just above it.
func adaptExamples(t *testing.T, root string) []adaptExample {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	var out []adaptExample
	for _, file := range files {
		blocks, err := fences(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for i, b := range blocks {
			if !strings.Contains(strings.ToLower(b.before), adaptPhrase) {
				continue
			}
			where := fmt.Sprintf("%s:%d", rel, b.line)
			if b.info != "json" || i == 0 {
				t.Errorf("%s: the block introduced as %q is not a JSON block after a Caddyfile block", where, adaptPhrase)
				continue
			}
			out = append(out, adaptExample{where: where, caddyfile: blocks[i-1].body, json: b.body})
		}
	}
	return out
}

// TestDocsAdaptGives holds every JSON block that docs/ shows as what
// `caddy adapt` gives to the real output of Caddy's caddyfile adapter for
// the Caddyfile block above it: a handler object must equal a handler of
// that name in the adapted config, any other object the whole config.
func TestDocsAdaptGives(t *testing.T) {
	root := filepath.Join("..", "..")
	examples := adaptExamples(t, root)
	// docs/osdm_sandbox.md, legacy_sandbox.md and osdm_legacy.md show one
	// each: a test that finds none has lost its way.
	if len(examples) < 3 {
		t.Fatalf("found %d %q blocks in docs/, want at least 3", len(examples), adaptPhrase)
	}
	for _, ex := range examples {
		out, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(ex.caddyfile), map[string]any{"filename": "Caddyfile"})
		if err != nil {
			t.Errorf("%s: the Caddyfile block above does not adapt: %v", ex.where, err)
			continue
		}
		for _, w := range warnings {
			t.Errorf("%s: adapting the block above: %s:%d: %s", ex.where, w.File, w.Line, w.Message)
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(ex.json), &want); err != nil {
			t.Errorf("%s: the JSON block does not parse: %v", ex.where, err)
			continue
		}
		var tree map[string]any
		if err := json.Unmarshal(out, &tree); err != nil {
			t.Fatal(err)
		}
		name, isHandler := want["handler"].(string)
		if !isHandler {
			if !reflect.DeepEqual(tree, want) {
				t.Errorf("%s: caddy adapt gives\n%s", ex.where, indent(out))
			}
			continue
		}
		var got []map[string]any
		harness.WalkHandlers(tree, func(h map[string]any) {
			if h["handler"] == name {
				got = append(got, h)
			}
		})
		found := false
		for _, h := range got {
			found = found || reflect.DeepEqual(h, want)
		}
		if !found {
			var b strings.Builder
			for _, h := range got {
				raw, _ := json.Marshal(h)
				b.WriteString(indent(raw) + "\n")
			}
			t.Errorf("%s: caddy adapt gives %d %s handler(s) for the block above, none equal to the doc's:\n%s", ex.where, len(got), name, b.String())
		}
	}
}

func indent(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// TestDocsCaddyfileBlocksAdapt: every block of docs/ and the README
// marked ```caddyfile is a whole configuration that Caddy's caddyfile
// adapter takes without an error or a warning (a guide's configuration
// can be pasted as it is).
func TestDocsCaddyfileBlocksAdapt(t *testing.T) {
	root := filepath.Join("..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	n := 0
	for _, file := range files {
		blocks, err := fences(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, b := range blocks {
			if b.info != "caddyfile" {
				continue
			}
			n++
			_, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(b.body), map[string]any{"filename": "Caddyfile"})
			if err != nil {
				t.Errorf("%s:%d: %v", rel, b.line, err)
			}
			for _, w := range warnings {
				t.Errorf("%s:%d: %s:%d: %s", rel, b.line, w.File, w.Line, w.Message)
			}
		}
	}
	if n < 3 {
		t.Fatalf("found %d caddyfile blocks in docs/ and the README, want at least 3", n)
	}
}
