package osdmsandbox

import (
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

func TestPlacesNeverShareACoachSeat(t *testing.T) {
	for _, capacity := range []int{1, 36, 100, 250} {
		for _, train := range []string{"708", "402"} {
			seen := map[string]group{}
			for _, g := range groupsOf(train) {
				for i := 0; i < capacity; i++ {
					coach, number := place(train, g, i, capacity)
					key := coach + "/" + number
					if other, dup := seen[key]; dup {
						t.Fatalf("train %s capacity %d: %s given to %v and %v", train, capacity, key, other, g)
					}
					seen[key] = g
				}
			}
		}
	}
	if coach, number := place("708", group{osdm.TravelClassSecond, osdm.AccommodationSeat}, 61, 100); coach != "4" || number != "12" {
		t.Errorf("second class place 61 with 100 per class: coach %s place %s", coach, number)
	}
}

func TestInventoryTakesAndReleases(t *testing.T) {
	inv := newInventory(3)
	k := runKey{"708", "2026-12-01"}
	g := group{osdm.TravelClassSecond, osdm.AccommodationSeat}
	a := inv.take(k, g, 2)
	if len(a) != 2 || inv.free(k, g) != 1 || inv.take(k, g, 2) != nil {
		t.Fatalf("took %v, free %d", a, inv.free(k, g))
	}
	other := group{osdm.TravelClassFirst, osdm.AccommodationSeat}
	if inv.free(k, other) != 3 || inv.free(runKey{"708", "2026-12-02"}, g) != 3 {
		t.Error("places of another class or day were taken")
	}
	inv.release(k, g, a[:1])
	if b := inv.take(k, g, 2); len(b) != 2 || b[0] != a[0] {
		t.Errorf("freed place %d not reused: %v", a[0], b)
	}
	inv.release(k, g, []int{0, 1, 2})
	inv.release(k, g, []int{0}) // twice: no effect
	if len(inv.runs) != 0 {
		t.Errorf("an empty run is kept: %+v", inv.runs)
	}
}

func TestISODuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		45 * time.Minute:             "PT45M",
		2 * time.Hour:                "PT2H",
		8*time.Hour + 35*time.Minute: "PT8H35M",
		90 * time.Second:             "PT2M",
		26*time.Hour + 1*time.Minute: "PT26H1M",
	} {
		if got := isoDuration(d); got != want {
			t.Errorf("%v: %s, want %s", d, got, want)
		}
	}
}
