// Package pdfcheck reads PDF documents back for tests, with the tools a
// person would use: poppler's pdfinfo (is it a valid PDF, what are its
// pages and metadata), pdftotext (what does it say) and pdftoppm with
// ZXing (does page 1 show a barcode a scanner reads, and what it holds).
// The tools are Debian's poppler-utils and python3-zxing-cpp (run by
// /usr/bin/python3, whose packages they are); a test that needs one skips,
// saying so, when it is not installed.
package pdfcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// python is Debian's interpreter, the one python3-zxing-cpp installs for
// (a python3 earlier in PATH, such as pyenv's, lacks the module).
const python = "/usr/bin/python3"

// toolTimeout bounds one run of a tool.
const toolTimeout = 2 * time.Minute

// NeedText skips t unless pdfinfo and pdftotext are installed.
func NeedText(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install poppler-utils): PDF checks skipped", tool)
		}
	}
}

// NeedCodes skips t unless pdftoppm and ZXing's Python module are
// installed.
func NeedCodes(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("pdftoppm is not installed (Debian: apt-get install poppler-utils): barcode checks skipped")
	}
	if err := exec.Command(python, "-c", "import zxingcpp, numpy").Run(); err != nil {
		t.Skipf("%s cannot import zxingcpp (Debian: apt-get install python3-zxing-cpp): barcode checks skipped", python)
	}
}

// file writes pdf to a file of t's and returns its path.
func file(t testing.TB, pdf []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// run runs a tool and returns its standard output; it fails t when the
// tool does (its standard error in the message).
func run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Info runs pdfinfo on pdf, failing t when poppler does not take it as
// a PDF or reports a syntax error, and returns its fields ("Pages",
// "Page size", "Title", ...).
func Info(t testing.TB, pdf []byte) map[string]string {
	t.Helper()
	NeedText(t)
	path := file(t, pdf)
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "pdfinfo", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		// pdfinfo repairs what it can and says so on stderr: a document
		// that needs repair is not a valid one.
		t.Fatalf("pdfinfo refuses the document: %v\n%s", err, stderr.String())
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return fields
}

// Text is what pdftotext reads in pdf, every page, laid out as printed
// (-layout: a row of a table stays one line).
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	NeedText(t)
	return string(run(t, "pdftotext", "-layout", "-enc", "UTF-8", file(t, pdf), "-"))
}

// Code is one barcode read from a page.
type Code struct {
	// Format is ZXing's name of the symbology, e.g. "Aztec".
	Format string
	// Text is what the code holds.
	Text string
}

// scanScript decodes the barcodes of a grey PGM page as a scanner held
// over it would: ZXing 1.x looks for an Aztec code's bullseye from the
// middle of its image, so the page is read in overlapping windows (a
// third of the page wide, a quarter tall, a sixth apart) as well as
// whole. Each distinct code is printed once: format, tab, text in JSON.
const scanScript = `
import json, sys, numpy, zxingcpp
data = open(sys.argv[1], "rb").read()
magic, w, h, maxval, pixels = data.split(None, 4)
assert magic == b"P5" and int(maxval) == 255
w, h = int(w), int(h)
img = numpy.frombuffer(pixels[:w*h], dtype=numpy.uint8).reshape(h, w)
seen = set()
def scan(part):
    for r in zxingcpp.read_barcodes(numpy.ascontiguousarray(part)):
        key = (r.format.name, r.text)
        if key not in seen:
            seen.add(key)
            print(r.format.name + "\t" + json.dumps(r.text))
scan(img)
ww, wh = w // 3, h // 4
for y in range(0, h - wh + 1, max(1, h // 12)):
    for x in range(0, w - ww + 1, max(1, w // 12)):
        scan(img[y:y+wh, x:x+ww])
`

// Codes renders page 1 of pdf at 150 dpi (pdftoppm, as grey PGM so that
// the script needs no image library) and returns the barcodes ZXing
// reads on it.
func Codes(t testing.TB, pdf []byte) []Code {
	t.Helper()
	NeedCodes(t)
	path := file(t, pdf)
	prefix := filepath.Join(filepath.Dir(path), "page")
	run(t, "pdftoppm", "-f", "1", "-l", "1", "-r", "150", "-gray", "-singlefile", path, prefix)
	out := run(t, python, "-c", scanScript, prefix+".pgm")
	var codes []Code
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		format, text, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Fatalf("reading the decoder's line %q: %v", line, err)
		}
		codes = append(codes, Code{Format: format, Text: s})
	}
	return codes
}
