package release

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

func BenchmarkHash(b *testing.B) {
	_, items := randomCase(rand.New(rand.NewSource(1)), 100, 100)
	for b.Loop() {
		Hash("site_demo", items)
	}
}

func BenchmarkCompose(b *testing.B) {
	live, items := randomCase(rand.New(rand.NewSource(1)), 2000, 100)
	for b.Loop() {
		Compose(live, items)
	}
}

func BenchmarkConflicts(b *testing.B) {
	live, items := randomCase(rand.New(rand.NewSource(1)), 2000, 100)
	for b.Loop() {
		Conflicts(live, items)
	}
}

// Snapshots store refs sorted by id, so this is the usual shape.
func BenchmarkComposeSortedLive(b *testing.B) {
	live, items := randomCase(rand.New(rand.NewSource(1)), 2000, 100)
	slices.SortFunc(live, func(x, y Ref) int { return strings.Compare(x.ID, y.ID) })
	for b.Loop() {
		Compose(live, items)
	}
}
