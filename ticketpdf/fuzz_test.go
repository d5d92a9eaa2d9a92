package ticketpdf

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// FuzzRender renders tickets whose names and stations are any text, of
// any script and length: Render must not fail, and what it writes must
// still be a well-formed PDF (checkStructure; TestRenderCutsAndWrapsLongFieldsVisibly
// and the others run pdfinfo on such documents).
func FuzzRender(f *testing.F) {
	f.Add("Zoë Ångström-Müller", "Αθήνα Λαρίσης", "Москва Белорусская", "IC 9203")
	f.Add("山田 太郎", "Ame\u0301lie\u200e", "\x00\x1b\r\n\t", "")
	f.Add(strings.Repeat("W", 3000), strings.Repeat("Βορειο ", 500), "😀", "9")
	f.Add(string([]byte{0xff, 0xfe}), "(unbalanced) \\ paren", "%%EOF", "endobj")
	f.Fuzz(func(t *testing.T, name, from, to, train string) {
		tk := sample()
		tk.Passengers[0] = name
		tk.Passengers[1] = to + " " + name
		leg := &tk.Legs[0]
		leg.Origin.Name, leg.Destination.Name, leg.Train = from, to, train
		leg.Places[2] = Place{Coach: train, Number: name}
		tk.Operator, leg.Class, tk.Reference = name, from, train
		pdf, err := Render(tk)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if err := checkStructure(pdf); err != nil {
			t.Fatal(err)
		}
	})
}

// checkStructure is a cheap check that pdf is a well-formed PDF: the
// header, the end, and a cross-reference table whose every entry points
// at the object it names.
func checkStructure(pdf []byte) error {
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.")) {
		return fmt.Errorf("no PDF header: %q", pdf[:min(len(pdf), 16)])
	}
	tail := string(pdf[max(0, len(pdf)-64):])
	i := strings.LastIndex(tail, "startxref\n")
	if i < 0 || !strings.HasSuffix(tail, "%%EOF\n") {
		return fmt.Errorf("no startxref and %%%%EOF at the end: %q", tail)
	}
	num := strings.TrimSuffix(tail[i+len("startxref\n"):], "\n%%EOF\n")
	xref, err := strconv.Atoi(num)
	if err != nil || xref <= 0 || xref >= len(pdf) {
		return fmt.Errorf("startxref %q is not an offset in the file", num)
	}
	table := string(pdf[xref:])
	head, rest, ok := strings.Cut(table, "\n")
	if !ok || head != "xref" {
		return fmt.Errorf("startxref %d does not point at the xref table", xref)
	}
	counts, rest, _ := strings.Cut(rest, "\n")
	var first, n int
	if _, err := fmt.Sscanf(counts, "%d %d", &first, &n); err != nil || first != 0 || n < 2 {
		return fmt.Errorf("xref subsection %q", counts)
	}
	for obj := range n {
		if len(rest) < 20 {
			return fmt.Errorf("xref table cut at object %d", obj)
		}
		entry := rest[:20]
		rest = rest[20:]
		if obj == 0 {
			continue
		}
		off, err := strconv.Atoi(entry[:10])
		if err != nil || entry[17] != 'n' {
			return fmt.Errorf("xref entry %d: %q", obj, entry)
		}
		want := strconv.Itoa(obj) + " 0 obj"
		if off >= len(pdf) || !bytes.HasPrefix(pdf[off:], []byte(want)) {
			return fmt.Errorf("xref entry %d points at %q, not %q", obj, pdf[off:min(len(pdf), off+len(want))], want)
		}
	}
	if !strings.HasPrefix(rest, "trailer\n") {
		return fmt.Errorf("no trailer after the xref table")
	}
	return nil
}

func TestCheckStructureCatchesABrokenFile(t *testing.T) {
	pdf := render(t, sample())
	if err := checkStructure(pdf); err != nil {
		t.Fatalf("a rendered ticket: %v", err)
	}
	// An object moved by one byte: the xref points beside it.
	i := bytes.Index(pdf, []byte("\n3 0 obj"))
	broken := append(append(append([]byte{}, pdf[:i]...), ' '), pdf[i:]...)
	if err := checkStructure(broken); err == nil {
		t.Error("a file whose objects moved passes")
	}
	if err := checkStructure(pdf[:len(pdf)-10]); err == nil {
		t.Error("a cut file passes")
	}
}
