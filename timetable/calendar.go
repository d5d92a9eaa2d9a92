package timetable

// maxCalendarDays bounds the span of a feed's calendar (about 100 years),
// so one absurd date cannot make the bitsets huge.
const maxCalendarDays = 36600

// calendar holds, per service, the days it runs as a bitset over the feed's
// date range [first, first+days).
type calendar struct {
	first day
	days  int32
	words int32    // uint64 words per service
	bits  []uint64 // services*words
}

func newCalendar(first, last day, services int) calendar {
	c := calendar{first: first, days: int32(last-first) + 1}
	if last < first {
		c.days = 0
	}
	c.words = (c.days + 63) / 64
	c.bits = make([]uint64, int(c.words)*services)
	return c
}

func (c *calendar) set(service int32, d day, on bool) {
	i := int32(d - c.first)
	if i < 0 || i >= c.days {
		return
	}
	w := &c.bits[service*c.words+i/64]
	if on {
		*w |= 1 << (i % 64)
	} else {
		*w &^= 1 << (i % 64)
	}
}

// runs says whether service runs on d.
func (c *calendar) runs(service int32, d day) bool {
	i := int32(d - c.first)
	if i < 0 || i >= c.days {
		return false
	}
	return c.bits[service*c.words+i/64]&(1<<(i%64)) != 0
}
