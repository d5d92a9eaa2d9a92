package ticketpdf

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/pdfcheck"
)

// sample is a ticket with names and stations in three scripts.
func sample() *Ticket {
	athens := time.FixedZone("EET", 2*3600)
	return &Ticket{
		Operator: "Hermes Rail (RICS 1185)",
		Legs: []Leg{{
			Train:       "IC 9203",
			Origin:      Station{Name: "Αθήνα Λαρίσης", Code: "7300001"},
			Destination: Station{Name: "Москва Белорусская", Code: "2000001"},
			Departure:   time.Date(2026, 12, 3, 7, 56, 0, 0, athens),
			Arrival:     time.Date(2026, 12, 4, 10, 12, 0, 0, athens),
			Class:       "2nd class, seat",
			Places:      []Place{{"12", "45"}, {"12", "46"}, {"14", "101"}},
		}},
		Passengers:    []string{"Zoë Ångström-Müller", "Σωκράτης Παπαδόπουλος", "Фёдор Достоевский"},
		BookingCode:   "QX7K2M",
		ControlNumber: "CN8H3JK29PLQ",
		Price:         "EUR 84.00",
		Reference:     "fu-123",
		IssuedOn:      time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC),
	}
}

func render(t testing.TB, tk *Ticket) []byte {
	t.Helper()
	pdf, err := Render(tk)
	if err != nil {
		t.Fatal(err)
	}
	return pdf
}

// flat is s with runs of white space as one space, for text that
// pdftotext may lay out over several lines or columns.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestRenderShowsTheTicket(t *testing.T) {
	pdf := render(t, sample())
	info := pdfcheck.Info(t, pdf)
	if info["Pages"] != "1" || !strings.Contains(info["Page size"], "(A4)") {
		t.Errorf("pages %q, size %q; want 1 A4 page", info["Pages"], info["Page size"])
	}
	if info["Title"] != "Ticket QX7K2M" || info["Producer"] != producer {
		t.Errorf("metadata %v", info)
	}
	text := flat(pdfcheck.Text(t, pdf))
	for _, want := range []string{
		"Hermes Rail (RICS 1185)", "IC 9203", "2026-12-03 (Thursday)",
		"07:56 Αθήνα Λαρίσης (7300001)", "10:12 Москва Белорусская (2000001)", "arrives on 2026-12-04",
		"2nd class, seat", "Zoë Ångström-Müller 12 45", "Σωκράτης Παπαδόπουλος 12 46", "Фёдор Достоевский 14 101",
		"QX7K2M", "CN8H3JK29PLQ", "EUR 84.00", "fu-123", "Issued 2026-11-29 08:00 UTC",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
}

func TestRenderAztecCodeHoldsControlNumberAndBookingCode(t *testing.T) {
	codes := pdfcheck.Codes(t, render(t, sample()))
	want := pdfcheck.Code{Format: "Aztec", Text: "CN:CN8H3JK29PLQ\nBC:QX7K2M"}
	if len(codes) != 1 || codes[0] != want {
		t.Fatalf("codes on page 1: %q, want only %q", codes, want)
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	a, b := render(t, sample()), render(t, sample())
	if !bytes.Equal(a, b) {
		t.Fatal("the same ticket rendered twice gives different bytes")
	}
	undated := sample()
	undated.IssuedOn = time.Time{}
	if other := render(t, undated); bytes.Equal(other, a) {
		t.Error("a ticket issued at another time gives the same bytes")
	}
	// The dates inside are the ticket's, never the time of rendering:
	// rendering later gives the same bytes.
	info := pdfcheck.Info(t, a)
	for _, k := range []string{"CreationDate", "ModDate"} {
		if !strings.Contains(info[k], "Nov 29 08:00:00 2026") {
			t.Errorf("%s is %q, want the ticket's IssuedOn", k, info[k])
		}
	}
	info = pdfcheck.Info(t, render(t, undated))
	if !strings.Contains(info["CreationDate"], "1970") {
		t.Errorf("a ticket without IssuedOn is dated %q, want the fixed 1970-01-01", info["CreationDate"])
	}
}

func TestRenderReplacesWhatTheFontCannotShow(t *testing.T) {
	tk := sample()
	tk.Passengers[0] = "山田 Taro"
	tk.Passengers[1] = "Ame\u0301lie\u200e Poulain" // e + combining acute, a direction mark
	text := flat(pdfcheck.Text(t, render(t, tk)))
	for _, want := range []string{"?? Taro", "Amélie Poulain"} {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
}

func TestRenderCutsAndWrapsLongFieldsVisibly(t *testing.T) {
	tk := sample()
	tk.Legs[0].Origin.Name = strings.Repeat("Βορειοανατολικός ", 40)
	tk.Passengers[0] = strings.Repeat("Wolfeschlegelsteinhausenbergerdorff", 200)
	tk.Passengers[1] = "Short Name"
	tk.Legs[0].Train = strings.Repeat("9", 10000)
	pdf := render(t, tk)
	pdfcheck.Info(t, pdf)
	text := pdfcheck.Text(t, pdf)
	if strings.Count(text, "…") < 3 {
		t.Errorf("the cut fields end with no ellipsis:\n%s", text)
	}
	if !strings.Contains(text, "Short Name") || !strings.Contains(text, "CN8H3JK29PLQ") {
		t.Errorf("a long field pushed the rest off the ticket:\n%s", text)
	}
}

func TestRenderManyPassengersGoOnTheNextPage(t *testing.T) {
	tk := sample()
	tk.Passengers = nil
	for i := range 60 {
		tk.Passengers = append(tk.Passengers, "Traveller Number "+string(rune('A'+i%26))+strings.Repeat("x", i))
	}
	tk.Passengers[59] = "Последний Пассажир"
	pdf := render(t, tk)
	if info := pdfcheck.Info(t, pdf); info["Pages"] == "1" {
		t.Errorf("60 passengers fit on one page? %v", info)
	}
	text := flat(pdfcheck.Text(t, pdf))
	if !strings.Contains(text, "Последний Пассажир") || !strings.Contains(text, "CN8H3JK29PLQ") {
		t.Errorf("the last passenger or the control number is missing:\n%s", text)
	}
}

func TestRenderWithoutPlacesOrNames(t *testing.T) {
	tk := sample()
	tk.Passengers = []string{""}
	tk.Legs[0].Places = nil
	tk.Legs[0].Arrival = time.Time{}
	text := flat(pdfcheck.Text(t, render(t, tk)))
	for _, want := range []string{"Passenger 1 (no name given) – –", "arrival time not given"} {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
}

func TestRenderRefusesCodesTooLongForTheAztecCode(t *testing.T) {
	tk := sample()
	tk.ControlNumber = strings.Repeat("C", MaxCodeBytes)
	if _, err := Render(tk); !errors.Is(err, ErrCodeTooLong) {
		t.Fatalf("err = %v, want ErrCodeTooLong", err)
	}
	tk.ControlNumber = strings.Repeat("C", MaxCodeBytes-len(tk.BookingCode))
	if _, err := Render(tk); err != nil {
		t.Fatalf("a code of MaxCodeBytes: %v", err)
	}
}

func TestPayload(t *testing.T) {
	for _, c := range []struct{ cn, bc, want string }{
		{"CN1", "BC1", "CN:CN1\nBC:BC1"},
		{"CN1", "", "CN:CN1"},
		{"", "BC1", "BC:BC1"},
		{"", "", ""},
	} {
		if got := Payload(c.cn, c.bc); got != c.want {
			t.Errorf("Payload(%q, %q) = %q, want %q", c.cn, c.bc, got, c.want)
		}
	}
}

func TestRenderJourneyWithAChange(t *testing.T) {
	tk := sample()
	brussels := time.FixedZone("CET", 3600)
	tk.Legs[0].Destination = Station{Name: "Wien Hbf", Code: "8101003"}
	tk.Legs = append(tk.Legs, Leg{
		Train:       "NJ 402",
		Origin:      Station{Name: "Wien Hbf", Code: "8101003"},
		Destination: Station{Name: "Bruxelles-Midi", Code: "8814001"},
		Departure:   time.Date(2026, 12, 4, 11, 30, 0, 0, brussels),
		Arrival:     time.Date(2026, 12, 5, 9, 5, 0, 0, brussels),
		Class:       "Couchette 6",
		Places:      []Place{{"261", "11"}, {"261", "12"}},
	})
	text := flat(pdfcheck.Text(t, render(t, tk)))
	for _, want := range []string{
		"IC 9203 / NJ 402", "1 change", "09:05 Bruxelles-Midi (8814001)", "2nd class, seat / Couchette 6",
		"2. NJ 402 · Couchette 6", "11:30 Wien Hbf (8101003) → 09:05 Bruxelles-Midi (8814001)",
		"Σωκράτης Παπαδόπουλος 261 12", "Фёдор Достоевский – –", "Фёдор Достоевский 14 101",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
}
