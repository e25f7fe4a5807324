package gate_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"studio/engine/model/gate"
)

var (
	t0 = time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC) // a from
	t1 = time.Date(2026, 11, 9, 6, 0, 0, 0, time.UTC) // an until
)

func at(t time.Time) *time.Time { return &t }

func published(from, until *time.Time) gate.Node {
	return gate.Node{ID: "ent_x", Published: true, From: from, Until: until}
}

func TestIsAvailableAndState(t *testing.T) {
	t.Parallel()
	ns := time.Nanosecond
	for _, tc := range []struct {
		name  string
		node  gate.Node
		now   time.Time
		avail bool
		state gate.GateState
	}{
		{"PublishedNoGates", published(nil, nil), t0, true, gate.Open},
		{"DraftNoGates", gate.Node{From: nil}, t0, false, gate.Open},
		{"DraftEmbargoed", gate.Node{From: at(t0)}, t0.Add(-ns), false, gate.Embargoed},
		{"DraftPastFrom", gate.Node{From: at(t0)}, t0, false, gate.Open},
		{"DraftExpired", gate.Node{Until: at(t1)}, t1, false, gate.Expired},

		{"FromOneNanosecondBefore", published(at(t0), nil), t0.Add(-ns), false, gate.Embargoed},
		{"FromExactly", published(at(t0), nil), t0, true, gate.Open},
		{"FromOneNanosecondAfter", published(at(t0), nil), t0.Add(ns), true, gate.Open},
		{"FromLongBefore", published(at(t0), nil), t0.AddDate(-1, 0, 0), false, gate.Embargoed},

		{"UntilOneNanosecondBefore", published(nil, at(t1)), t1.Add(-ns), true, gate.Open},
		{"UntilExactly", published(nil, at(t1)), t1, false, gate.Expired},
		{"UntilOneNanosecondAfter", published(nil, at(t1)), t1.Add(ns), false, gate.Expired},

		{"BothBeforeFrom", published(at(t0), at(t1)), t0.Add(-ns), false, gate.Embargoed},
		{"BothAtFrom", published(at(t0), at(t1)), t0, true, gate.Open},
		{"BothBetween", published(at(t0), at(t1)), t0.Add(time.Hour), true, gate.Open},
		{"BothJustBeforeUntil", published(at(t0), at(t1)), t1.Add(-ns), true, gate.Open},
		{"BothAtUntil", published(at(t0), at(t1)), t1, false, gate.Expired},

		// from == until: an empty window, never open.
		{"EmptyWindowBefore", published(at(t0), at(t0)), t0.Add(-ns), false, gate.Embargoed},
		{"EmptyWindowAt", published(at(t0), at(t0)), t0, false, gate.Expired},
		// from > until breaks the contract; the node is never open.
		{"InvertedBeforeUntil", published(at(t1), at(t0)), t0.Add(-ns), false, gate.Embargoed},
		{"InvertedBetween", published(at(t1), at(t0)), t0.Add(time.Hour), false, gate.Embargoed},
		{"InvertedAfterFrom", published(at(t1), at(t0)), t1, false, gate.Expired},

		// Instants, not wall clocks: the same instant in another zone.
		{"OtherZoneAtFrom", published(at(t0.In(time.FixedZone("TRT", 3*3600))), nil), t0, true, gate.Open},
		{"OtherZoneJustBefore", published(at(t0.In(time.FixedZone("TRT", 3*3600))), nil), t0.Add(-ns).In(time.FixedZone("X", -5*3600)), false, gate.Embargoed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := gate.IsAvailable(tc.node, tc.now); got != tc.avail {
				t.Errorf("IsAvailable = %v, want %v", got, tc.avail)
			}
			if got := gate.State(tc.node, tc.now); got != tc.state {
				t.Errorf("State = %q, want %q", got, tc.state)
			}
		})
	}
}

// TestIsAvailableWithMonotonicNow checks that a now carrying a monotonic
// clock reading (as the real clock's does) compares by instant with gates
// that carry none (parsed from JSON).
func TestIsAvailableWithMonotonicNow(t *testing.T) {
	t.Parallel()
	now := time.Now() // has a monotonic reading; tests may read the clock
	wall, err := time.Parse(time.RFC3339Nano, now.UTC().Format(time.RFC3339Nano))
	if err != nil {
		t.Fatal(err)
	}
	if !gate.IsAvailable(published(&wall, nil), now) {
		t.Error("from parsed from now is not open at now")
	}
	later := wall.Add(time.Nanosecond)
	if gate.IsAvailable(published(&later, nil), now) {
		t.Error("from one nanosecond after now is open at now")
	}
	if gate.IsAvailable(published(nil, &wall), now) {
		t.Error("until parsed from now is not closed at now")
	}
}

func TestNextGate(t *testing.T) {
	t.Parallel()
	ns := time.Nanosecond
	t2 := t1.Add(48 * time.Hour)
	for _, tc := range []struct {
		name  string
		nodes []gate.Node
		now   time.Time
		want  time.Time
		ok    bool
	}{
		{"NoNodes", nil, t0, time.Time{}, false},
		{"NoGates", []gate.Node{published(nil, nil)}, t0, time.Time{}, false},
		{"FromAhead", []gate.Node{published(at(t0), nil)}, t0.Add(-time.Hour), t0, true},
		{"FromOneNanosecondAhead", []gate.Node{published(at(t0), nil)}, t0.Add(-ns), t0, true},
		{"FromExactlyNowHasHappened", []gate.Node{published(at(t0), nil)}, t0, time.Time{}, false},
		{"FromPast", []gate.Node{published(at(t0), nil)}, t0.Add(ns), time.Time{}, false},
		{"UntilAhead", []gate.Node{published(nil, at(t1))}, t0, t1, true},
		{"UntilExactlyNowHasHappened", []gate.Node{published(nil, at(t1))}, t1, time.Time{}, false},
		{"FromThenUntilOfOneNode", []gate.Node{published(at(t0), at(t1))}, t0.Add(-ns), t0, true},
		{"UntilAfterFromPassed", []gate.Node{published(at(t0), at(t1))}, t0, t1, true},
		{"EarliestOfMany", []gate.Node{published(at(t2), nil), published(nil, at(t1)), published(at(t0), at(t2))}, t0.Add(-time.Hour), t0, true},
		{"SkipsPastOfMany", []gate.Node{published(at(t2), nil), published(nil, at(t1)), published(at(t0), at(t2))}, t0, t1, true},
		{"SameInstantTwice", []gate.Node{published(at(t0), nil), published(nil, at(t0))}, t0.Add(-ns), t0, true},
		{"UnpublishedIgnored", []gate.Node{{From: at(t0)}, published(nil, at(t1))}, t0.Add(-time.Hour), t1, true},
		{"OnlyUnpublished", []gate.Node{{From: at(t0), Until: at(t1)}}, t0.Add(-time.Hour), time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := gate.NextGate(tc.nodes, tc.now)
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Errorf("NextGate = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
			ix := gate.NewIndex(tc.nodes)
			got, ok = ix.Next(tc.now)
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Errorf("Index.Next = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestMaxAge(t *testing.T) {
	t.Parallel()
	ns := time.Nanosecond
	year := gate.MaxAgeCap * time.Second
	for _, tc := range []struct {
		name    string
		next    time.Duration // after now
		hasNext bool
		want    int
	}{
		{"NoNextGate", 0, false, 31536000},
		{"GateAtNow", 0, true, 1},
		{"GateInThePast", -time.Hour, true, 1},
		{"OneNanosecond", ns, true, 1},
		{"HalfASecond", 500 * time.Millisecond, true, 1},
		{"JustUnderOneSecond", time.Second - ns, true, 1},
		{"ExactlyOneSecond", time.Second, true, 1},
		{"OneSecondAndANanosecond", time.Second + ns, true, 2},
		{"NinetySeconds", 90 * time.Second, true, 90},
		{"NinetySecondsAndABit", 90*time.Second + time.Millisecond, true, 91},
		{"JustUnderAYear", year - time.Second, true, 31535999},
		{"JustUnderAYearPlusANanosecond", year - time.Second + ns, true, 31536000},
		{"ExactlyAYear", year, true, 31536000},
		{"AYearAndANanosecond", year + ns, true, 31536000},
		{"FarFuture", 200 * 365 * 24 * time.Hour, true, 31536000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := gate.MaxAge(t0.Add(tc.next), tc.hasNext, t0); got != tc.want {
				t.Errorf("MaxAge = %d, want %d", got, tc.want)
			}
		})
	}
	t.Run("BeyondDurationRange", func(t *testing.T) {
		far := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
		if got := gate.MaxAge(far, true, t0); got != 31536000 {
			t.Errorf("MaxAge = %d, want the cap", got)
		}
	})
	t.Run("IndexMaxAge", func(t *testing.T) {
		ix := gate.NewIndex([]gate.Node{published(at(t0), nil)})
		if got := ix.MaxAge(t0.Add(-90 * time.Second)); got != 90 {
			t.Errorf("Index.MaxAge before the gate = %d, want 90", got)
		}
		if got := ix.MaxAge(t0); got != 31536000 {
			t.Errorf("Index.MaxAge at the gate = %d, want the cap", got)
		}
		var nilIx *gate.Index
		if got := nilIx.MaxAge(t0); got != 31536000 || nilIx.Len() != 0 || nilIx.Instants() != nil {
			t.Errorf("nil index: MaxAge %d, Len %d", got, nilIx.Len())
		}
	})
}

func TestInheritedFrom(t *testing.T) {
	t.Parallel()
	ns := time.Nanosecond
	t2 := t0.Add(time.Hour) // a later from
	past := t0.Add(-48 * time.Hour)
	now := t0.Add(-time.Hour)
	embargoed := func(from time.Time) gate.Node { return published(at(from), nil) }
	open := published(nil, nil)
	openWithPastFrom := published(at(past), nil)
	expired := published(nil, at(now.Add(-time.Minute)))
	draftOpen := gate.Node{ID: "draft"}
	for _, tc := range []struct {
		name      string
		refs      []gate.Node
		now       time.Time
		wantFrom  time.Time
		embargoed bool
	}{
		{"NoReferrers", nil, now, time.Time{}, false},
		{"OneOpen", []gate.Node{open}, now, time.Time{}, false},
		{"OneOpenAfterItsFrom", []gate.Node{openWithPastFrom}, now, time.Time{}, false},
		{"OneEmbargoed", []gate.Node{embargoed(t0)}, now, t0, true},
		{"OneEmbargoedOneNanosecondBefore", []gate.Node{embargoed(t0)}, t0.Add(-ns), t0, true},
		{"OneEmbargoedAtFrom", []gate.Node{embargoed(t0)}, t0, time.Time{}, false},
		{"TwoEmbargoedEarliestFrom", []gate.Node{embargoed(t2), embargoed(t0)}, now, t0, true},
		{"TwoEmbargoedOrderDoesNotMatter", []gate.Node{embargoed(t0), embargoed(t2)}, now, t0, true},
		{"TwoEmbargoedAfterTheFirstOpens", []gate.Node{embargoed(t0), embargoed(t2)}, t0, time.Time{}, false},
		{"EmbargoedAndOpen", []gate.Node{embargoed(t0), open}, now, time.Time{}, false},
		{"OpenAndEmbargoed", []gate.Node{open, embargoed(t0)}, now, time.Time{}, false},
		// An expired referrer already made the asset public: open.
		{"EmbargoedAndExpired", []gate.Node{embargoed(t0), expired}, now, time.Time{}, false},
		{"OnlyExpired", []gate.Node{expired}, now, time.Time{}, false},
		// Unpublished referrers neither show nor open the asset.
		{"EmbargoedAndDraft", []gate.Node{draftOpen, embargoed(t0)}, now, t0, true},
		{"EmbargoedAndEmbargoedDraft", []gate.Node{{From: at(past.Add(-time.Hour))}, embargoed(t0)}, now, t0, true},
		{"OnlyDrafts", []gate.Node{draftOpen, {From: at(t0)}}, now, time.Time{}, false},
		// An embargoed referrer that will also expire still embargoes.
		{"EmbargoedWithUntil", []gate.Node{published(at(t0), at(t2))}, now, t0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, ok := gate.InheritedFrom(tc.refs, tc.now)
			if ok != tc.embargoed || !from.Equal(tc.wantFrom) {
				t.Errorf("InheritedFrom = %v, %v; want %v, %v", from, ok, tc.wantFrom, tc.embargoed)
			}
			if got := gate.AssetAvailable(tc.refs, tc.now); got == tc.embargoed {
				t.Errorf("AssetAvailable = %v, want %v", got, !tc.embargoed)
			}
		})
	}

	t.Run("InheritedGates", func(t *testing.T) {
		got := gate.InheritedGates(map[string][]gate.Node{
			"ast_cover":  {embargoed(t2), embargoed(t0)},
			"ast_shared": {embargoed(t0), open},
			"ast_orphan": nil,
			"ast_old":    {expired},
		}, now)
		if len(got) != 1 || !got["ast_cover"].Equal(t0) {
			t.Errorf("InheritedGates = %v, want only ast_cover at %v", got, t0)
		}
	})
}

// randomNodes makes n nodes with gates spread over a few days around base,
// with instants often shared between nodes (gates on the same minute are
// common: a campaign embargoes several entries at once).
func randomNodes(rng *rand.Rand, n int, base time.Time) []gate.Node {
	pool := make([]time.Time, 12)
	for i := range pool {
		pool[i] = base.Add(time.Duration(rng.Int63n(int64(96 * time.Hour))))
	}
	pick := func() *time.Time {
		if rng.Intn(3) == 0 {
			return nil
		}
		var t time.Time
		if rng.Intn(2) == 0 {
			t = pool[rng.Intn(len(pool))]
		} else {
			t = base.Add(time.Duration(rng.Int63n(int64(96 * time.Hour))))
		}
		return &t
	}
	nodes := make([]gate.Node, n)
	for i := range nodes {
		from, until := pick(), pick()
		if from != nil && until != nil && !from.Before(*until) {
			from, until = until, from // keep from < until mostly; equal stays
		}
		nodes[i] = gate.Node{ID: fmt.Sprint("ent_", i), Published: rng.Intn(5) != 0, From: from, Until: until}
	}
	return nodes
}

// gateChanges walks NextGate from start and returns every gate instant up
// to the last one.
func gateChanges(nodes []gate.Node, start time.Time) []time.Time {
	var out []time.Time
	now := start
	for {
		next, ok := gate.NextGate(nodes, now)
		if !ok {
			return out
		}
		if !next.After(now) {
			panic("NextGate did not move forward")
		}
		out = append(out, next)
		now = next
	}
}

// TestAvailabilityConstantBetweenGates is the property behind the cache
// cap: between two consecutive instants NextGate returns, no node's
// availability, gate state or inherited asset gate changes. Sample points
// include both ends of every interval (the start itself and one nanosecond
// before the next gate).
func TestAvailabilityConstantBetweenGates(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(20261102))
	base := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	for trial := range 200 {
		nodes := randomNodes(rng, 1+rng.Intn(30), base)
		// A few assets, each referenced by a random subset.
		assets := make([][]gate.Node, 4)
		for a := range assets {
			for i := range nodes {
				if rng.Intn(4) == 0 {
					assets[a] = append(assets[a], nodes[i])
				}
			}
		}
		start := base.Add(-time.Hour)
		bounds := append([]time.Time{start}, gateChanges(nodes, start)...)
		bounds = append(bounds, bounds[len(bounds)-1].Add(72*time.Hour))
		for k := 0; k+1 < len(bounds); k++ {
			lo, hi := bounds[k], bounds[k+1]
			samples := []time.Time{lo, hi.Add(-time.Nanosecond)}
			for range 5 {
				samples = append(samples, lo.Add(time.Duration(rng.Int63n(int64(hi.Sub(lo))))))
			}
			for i, n := range nodes {
				wantA, wantS := gate.IsAvailable(n, lo), gate.State(n, lo)
				for _, s := range samples {
					if !n.Published {
						// Unpublished nodes are skipped by NextGate; their
						// availability must stay false.
						if gate.IsAvailable(n, s) {
							t.Fatalf("trial %d: unpublished node %d available at %v", trial, i, s)
						}
						continue
					}
					if gate.IsAvailable(n, s) != wantA || gate.State(n, s) != wantS {
						t.Fatalf("trial %d: node %d changes inside [%v, %v) at %v", trial, i, lo, hi, s)
					}
				}
			}
			for a, refs := range assets {
				wantFrom, wantE := gate.InheritedFrom(refs, lo)
				for _, s := range samples {
					if from, e := gate.InheritedFrom(refs, s); e != wantE || !from.Equal(wantFrom) {
						t.Fatalf("trial %d: asset %d's inherited gate changes inside [%v, %v) at %v", trial, a, lo, hi, s)
					}
				}
			}
			// Every inner bound is a gate of a published node.
			if k+1 < len(bounds)-1 {
				isGate := false
				for _, n := range nodes {
					if n.Published && ((n.From != nil && n.From.Equal(hi)) || (n.Until != nil && n.Until.Equal(hi))) {
						isGate = true
					}
				}
				if !isGate {
					t.Fatalf("trial %d: %v is no gate of a published node", trial, hi)
				}
			}
		}
	}
}

// TestMaxAgeProperties: MaxAge is at least 1, at most the cap, never more
// than the time to the next gate rounded up to a second, and every node's
// availability holds for the whole (MaxAge − 1) s after now.
func TestMaxAgeProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(7))
	base := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	for trial := range 500 {
		nodes := randomNodes(rng, 1+rng.Intn(20), base)
		now := base.Add(time.Duration(rng.Int63n(int64(100 * time.Hour))))
		if trial%10 == 0 {
			// Exactly at a gate now and then.
			if n := nodes[rng.Intn(len(nodes))]; n.From != nil {
				now = *n.From
			}
		}
		next, ok := gate.NextGate(nodes, now)
		age := gate.MaxAge(next, ok, now)
		if age < 1 || age > gate.MaxAgeCap {
			t.Fatalf("trial %d: MaxAge %d out of [1, cap]", trial, age)
		}
		if !ok {
			if age != gate.MaxAgeCap {
				t.Fatalf("trial %d: no gate but MaxAge %d", trial, age)
			}
			continue
		}
		d := next.Sub(now)
		ceil := int((d + time.Second - 1) / time.Second)
		if age > ceil {
			t.Fatalf("trial %d: MaxAge %d exceeds ceil(%v) = %d", trial, age, d, ceil)
		}
		if time.Duration(age-1)*time.Second >= d {
			t.Fatalf("trial %d: MaxAge %d reaches the gate %v away", trial, age, d)
		}
		end := now.Add(time.Duration(age-1) * time.Second)
		for i, n := range nodes {
			if gate.IsAvailable(n, now) != gate.IsAvailable(n, end) {
				t.Fatalf("trial %d: node %d changes within max-age", trial, i)
			}
		}
	}
}

// TestIndexAgreesWithNextGate: on random snapshots, Index.Next equals
// NextGate at random instants, at every gate instant and one nanosecond on
// either side of it.
func TestIndexAgreesWithNextGate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(42))
	base := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	for trial := range 200 {
		nodes := randomNodes(rng, rng.Intn(60), base)
		ix := gate.NewIndex(nodes)
		var probes []time.Time
		for _, n := range nodes {
			for _, g := range []*time.Time{n.From, n.Until} {
				if g != nil {
					probes = append(probes, g.Add(-time.Nanosecond), *g, g.Add(time.Nanosecond))
				}
			}
		}
		for range 20 {
			probes = append(probes, base.Add(time.Duration(rng.Int63n(int64(110*time.Hour)))-5*time.Hour))
		}
		for _, p := range probes {
			want, wok := gate.NextGate(nodes, p)
			got, gok := ix.Next(p)
			if wok != gok || !want.Equal(got) {
				t.Fatalf("trial %d at %v: Index.Next = %v, %v; NextGate = %v, %v", trial, p, got, gok, want, wok)
			}
		}
		ins := ix.Instants()
		if !slices.IsSortedFunc(ins, time.Time.Compare) || ix.Len() != len(ins) {
			t.Fatalf("trial %d: instants not sorted", trial)
		}
		for k := 1; k < len(ins); k++ {
			if ins[k].Equal(ins[k-1]) {
				t.Fatalf("trial %d: repeated instant %v", trial, ins[k])
			}
		}
	}
}

// TestIndexSameInstantDifferentZones: one instant written in two zones is
// one gate.
func TestIndexSameInstantDifferentZones(t *testing.T) {
	t.Parallel()
	ix := gate.NewIndex([]gate.Node{
		published(at(t0), nil),
		published(at(t0.In(time.FixedZone("TRT", 3*3600))), nil),
	})
	if ix.Len() != 1 {
		t.Fatalf("Len = %d, want 1", ix.Len())
	}
}

func benchNodes(n int) []gate.Node {
	return randomNodes(rand.New(rand.NewSource(1)), n, time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC))
}

func BenchmarkNextGate2000(b *testing.B) {
	nodes := benchNodes(2000)
	now := time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		gate.NextGate(nodes, now)
	}
}

func BenchmarkNewIndex2000(b *testing.B) {
	nodes := benchNodes(2000)
	b.ReportAllocs()
	for b.Loop() {
		gate.NewIndex(nodes)
	}
}

func BenchmarkIndexNext2000(b *testing.B) {
	ix := gate.NewIndex(benchNodes(2000))
	now := time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		ix.Next(now)
	}
}

func BenchmarkIndexMaxAge2000(b *testing.B) {
	ix := gate.NewIndex(benchNodes(2000))
	now := time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		ix.MaxAge(now)
	}
}

func BenchmarkInheritedFrom(b *testing.B) {
	refs := benchNodes(20)
	now := time.Date(2026, 10, 29, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		gate.InheritedFrom(refs, now)
	}
}

// TestIndexInterval: two instants share an Interval exactly when no gate of
// a published node lies in (earlier, later]; and within one interval every
// node's availability and every inherited asset gate is the same.
func TestIndexInterval(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(11))
	base := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	for trial := range 200 {
		nodes := randomNodes(rng, rng.Intn(40), base)
		ix := gate.NewIndex(nodes)
		var probes []time.Time
		for _, g := range ix.Instants() {
			probes = append(probes, g.Add(-time.Nanosecond), g, g.Add(time.Nanosecond))
		}
		for range 20 {
			probes = append(probes, base.Add(time.Duration(rng.Int63n(int64(110*time.Hour)))-5*time.Hour))
		}
		slices.SortFunc(probes, time.Time.Compare)
		for k, p := range probes {
			i := ix.Interval(p)
			if i < 0 || i > ix.Len() {
				t.Fatalf("trial %d: Interval(%v) = %d out of [0, %d]", trial, p, i, ix.Len())
			}
			// i counts the instants at or before p.
			n := 0
			for _, g := range ix.Instants() {
				if !g.After(p) {
					n++
				}
			}
			if i != n {
				t.Fatalf("trial %d: Interval(%v) = %d, want %d", trial, p, i, n)
			}
			if k == 0 || ix.Interval(probes[k-1]) != i {
				continue
			}
			for j, nd := range nodes {
				if gate.IsAvailable(nd, p) != gate.IsAvailable(nd, probes[k-1]) {
					t.Fatalf("trial %d: node %d changes within interval %d", trial, j, i)
				}
			}
			from1, e1 := gate.InheritedFrom(nodes, p)
			from0, e0 := gate.InheritedFrom(nodes, probes[k-1])
			if e1 != e0 || !from1.Equal(from0) {
				t.Fatalf("trial %d: an inherited gate changes within interval %d", trial, i)
			}
		}
	}
	var nilIx *gate.Index
	if nilIx.Interval(t0) != 0 {
		t.Fatal("a nil index has one interval, 0")
	}
}
