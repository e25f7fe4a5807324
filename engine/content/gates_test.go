package content

import (
	"testing"
	"time"
)

func TestGatesAreContent(t *testing.T) {
	nine := time.Date(2026, 11, 3, 9, 0, 0, 0, time.FixedZone("+03", 3*3600))
	six := time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC)
	later := six.Add(time.Hour)
	base := Body{Title: "Election night", Slug: "election-night", Status: StatusPublished}

	t.Run("InTheHash", func(t *testing.T) {
		gated := base
		gated.Availability = &Availability{From: &six}
		if Hash(gated) == Hash(base) {
			t.Fatal("a gate does not change the hash")
		}
	})
	t.Run("NormalizedOneWay", func(t *testing.T) {
		a, b := base, base
		a.Availability = &Availability{From: &nine}
		withNanos := six.Add(123456789)
		b.Availability = &Availability{From: &withNanos}
		if got := Normalize(a).Availability.From; got.Location() != time.UTC || !got.Equal(six) {
			t.Fatalf("from %v, want UTC", got)
		}
		if got := Normalize(b).Availability.From; got.Nanosecond() != 123_000_000 {
			t.Fatalf("from %v, want milliseconds", got)
		}
		empty := base
		empty.Availability = &Availability{}
		if Normalize(empty).Availability != nil || Hash(Normalize(empty)) != Hash(base) {
			t.Fatal("an empty availability is not the same as none")
		}
		sameA, sameB := base, base
		sameA.Availability, sameB.Availability = &Availability{From: &nine}, &Availability{From: &six}
		if Hash(Normalize(sameA)) != Hash(Normalize(sameB)) {
			t.Fatal("one instant in two zones hashes differently")
		}
	})
	t.Run("Order", func(t *testing.T) {
		for _, c := range []struct {
			from, until *time.Time
			ok          bool
		}{{&six, &later, true}, {&six, nil, true}, {nil, &six, true}, {&later, &six, false}, {&six, &nine, false}} {
			b := base
			b.Availability = &Availability{From: c.from, Until: c.until}
			err := Validate(b)
			if fe, _ := err.(*FieldError); c.ok != (err == nil) || (!c.ok && (fe == nil || fe.Field != "until" || fe.Key != "error.gate_order")) {
				t.Errorf("from %v until %v: %v", c.from, c.until, err)
			}
		}
	})
	t.Run("FirstPublishedAt", func(t *testing.T) {
		at := six.Add(-3 * time.Hour)
		if got := FirstPublishedAt(base, at); !got.Equal(at) {
			t.Errorf("no embargo: %v, want the publish time", got)
		}
		gated := base
		gated.Availability = &Availability{From: &six}
		if got := FirstPublishedAt(gated, at); !got.Equal(six) {
			t.Errorf("embargoed: %v, want from", got)
		}
		dated := gated
		dated.PublishedAt = &at
		if got := FirstPublishedAt(dated, later); !got.Equal(at) {
			t.Errorf("dated: %v, want its own date", got)
		}
	})
}
