package ids

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The contract vector (DESIGN.md "Contracts to keep exactly").
func TestRunIDVector(t *testing.T) {
	at := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	if got, want := RunID("rel_ABCDEFGHJK", at), "run_51BQW6G4D5JP97RJ00GG"; got != want {
		t.Fatalf("RunID = %s, want %s", got, want)
	}
}

func TestRunIDShapeAndDeterminism(t *testing.T) {
	re := regexp.MustCompile(`^run_[0-9A-HJKMNP-TV-Z]{20}$`)
	at := time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)
	a, b := RunID("rel_x", at), RunID("rel_x", at)
	if a != b {
		t.Fatalf("not deterministic: %s vs %s", a, b)
	}
	if !re.MatchString(a) {
		t.Fatalf("%s does not match %s", a, re)
	}
	if RunID("rel_y", at) == a {
		t.Fatal("different subject, same id")
	}
	if RunID("rel_x", at.Add(time.Millisecond)) == a {
		t.Fatal("different millisecond, same id")
	}
	// Below a millisecond the layout truncates: same occurrence.
	if RunID("rel_x", at.Add(999*time.Microsecond)) != a {
		t.Fatal("sub-millisecond change gave a different id")
	}
}

// The same instant in another zone is the same occurrence.
func TestRunIDZoneIndependent(t *testing.T) {
	at := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	want := RunID("rel_ABCDEFGHJK", at)
	zones := []*time.Location{time.FixedZone("+03", 3*3600), time.FixedZone("-0930", -(9*3600 + 1800))}
	if ist, err := time.LoadLocation("Europe/Istanbul"); err == nil {
		zones = append(zones, ist)
	}
	for _, z := range zones {
		if got := RunID("rel_ABCDEFGHJK", at.In(z)); got != want {
			t.Errorf("in %s: %s, want %s", z, got, want)
		}
	}
}

func TestNewShape(t *testing.T) {
	re := regexp.MustCompile(`^rel_[A-Za-z0-9]{16}$`)
	for range 100 {
		if id := New("rel"); !re.MatchString(id) {
			t.Fatalf("%q does not match %s", id, re)
		}
	}
}

func TestNewFromFixedReader(t *testing.T) {
	seed := bytes.Repeat([]byte{0, 1, 61, 62, 200, 247}, 20)
	a, err := NewFrom("snp", bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewFrom("snp", bytes.NewReader(seed))
	if a != b {
		t.Fatalf("not deterministic: %s vs %s", a, b)
	}
	// 0→A 1→B 61→9 62→A 200→200%62=14→O 247→247%62=61→9
	if want := "snp_AB9AO9AB9AO9AB9A"; a != want {
		t.Fatalf("got %s, want %s", a, want)
	}
}

// Bytes ≥ 248 are skipped, not folded into the alphabet (that would bias it).
func TestNewFromRejects(t *testing.T) {
	seed := append(bytes.Repeat([]byte{248, 255}, 8), make([]byte, 32)...)
	id, err := NewFrom("user", bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	if want := "user_" + strings.Repeat("A", 16); id != want {
		t.Fatalf("got %s, want %s", id, want)
	}
}

func TestNewFromReaderError(t *testing.T) {
	if _, err := NewFrom("aud", bytes.NewReader(bytes.Repeat([]byte{255}, 64))); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("want EOF from an exhausted reader, got %v", err)
	}
}

// Rough uniqueness and uniformity: 10k ids, no repeats, every character near
// its expected share (10k×16/62 ≈ 2581; ±20% is many standard deviations).
func TestNewUniqueAndSpread(t *testing.T) {
	const n = 10_000
	seen := make(map[string]bool, n)
	counts := map[rune]int{}
	for range n {
		id := New("site")
		if seen[id] {
			t.Fatalf("duplicate %s", id)
		}
		seen[id] = true
		for _, c := range id[len("site_"):] {
			counts[c]++
		}
	}
	if len(counts) != len(alnum) {
		t.Fatalf("saw %d distinct characters, want %d", len(counts), len(alnum))
	}
	exp := float64(n*randLen) / float64(len(alnum))
	for c, k := range counts {
		if float64(k) < exp*0.8 || float64(k) > exp*1.2 {
			t.Errorf("character %q seen %d times, expected about %.0f", c, k, exp)
		}
	}
}

func BenchmarkRunID(b *testing.B) {
	at := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	for b.Loop() {
		RunID("rel_ABCDEFGHJK", at)
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New("rel")
	}
}
