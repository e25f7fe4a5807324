package policy_test

import (
	"slices"
	"testing"
	"time"

	"studio/engine/policy"
)

// rfcCell translates a cell of the RFC's tables into a verdict: ✓, ✗,
// waits, the auto cell of publish, and — (not applicable).
func rfcCell(t *testing.T, cell string) policy.Verdict {
	t.Helper()
	switch cell {
	case "✓":
		return policy.Allowed
	case "✗":
		return policy.Refused
	case "waits":
		return policy.Waits
	case "low-risk inside the window: ✓; else waits", "low-risk in window ✓, else waits":
		return policy.LowRiskInWindow
	case "—":
		return policy.NotApplicable
	}
	t.Fatalf("no such cell %q", cell)
	return ""
}

// TestDecideEveryCell transcribes §10.3's table:
//
//	Class     plan manual edits auto                                      bypass (local)
//	read      ✓    ✓      ✓     ✓                                         ✓
//	advisory  ✗    ✓      ✓     ✓                                         ✓
//	reduce    ✗    waits  ✓     ✓                                         ✓
//	publish   ✗    waits  waits low-risk inside the window: ✓; else waits ✓
//	person    ✗    waits  waits waits                                     waits
func TestDecideEveryCell(t *testing.T) {
	t.Parallel()
	modes := []policy.Mode{"plan", "manual", "edits", "auto", "bypass"}
	table := []struct {
		class policy.Class
		cells []string
	}{
		{"read", []string{"✓", "✓", "✓", "✓", "✓"}},
		{"advisory", []string{"✗", "✓", "✓", "✓", "✓"}},
		{"reduce", []string{"✗", "waits", "✓", "✓", "✓"}},
		{"publish", []string{"✗", "waits", "waits", "low-risk inside the window: ✓; else waits", "✓"}},
		{"person", []string{"✗", "waits", "waits", "waits", "waits"}},
	}
	if len(table) != len(policy.Classes) || len(modes) != len(policy.Modes) {
		t.Fatalf("the RFC has 5 classes and 5 modes; package has %v and %v", policy.Classes, policy.Modes)
	}
	for _, row := range table {
		for i, m := range modes {
			t.Run(string(row.class)+"/"+string(m), func(t *testing.T) {
				want := rfcCell(t, row.cells[i])
				if got := policy.Decide(row.class, m); got != want {
					t.Errorf("Decide(%s, %s) = %s, want %s", row.class, m, got, want)
				}
				// Resolved: only publish in auto depends on the check.
				for _, ok := range []bool{true, false} {
					w := want
					if want == policy.LowRiskInWindow {
						w = policy.Waits
						if ok {
							w = policy.Allowed
						}
					}
					if got := policy.DecideCall(row.class, m, ok); got != w {
						t.Errorf("DecideCall(%s, %s, %v) = %s, want %s", row.class, m, ok, got, w)
					}
				}
			})
		}
	}
	t.Run("Unknown", func(t *testing.T) {
		for _, tc := range []struct {
			c policy.Class
			m policy.Mode
		}{{"write", "auto"}, {"read", "yolo"}, {"", ""}, {"read", ""}} {
			if got := policy.Decide(tc.c, tc.m); got != policy.Refused {
				t.Errorf("Decide(%q, %q) = %s, want refused", tc.c, tc.m, got)
			}
		}
	})
}

func TestVerdictResolveAndProceeds(t *testing.T) {
	t.Parallel()
	all := []policy.Verdict{policy.Allowed, policy.Refused, policy.Waits, policy.LowRiskInWindow, policy.NotApplicable, policy.Tainted, policy.UnavailableInRun}
	for _, v := range all {
		for _, ok := range []bool{true, false} {
			got := v.Resolve(ok)
			want := v
			if v == policy.LowRiskInWindow {
				want = map[bool]policy.Verdict{true: policy.Allowed, false: policy.Waits}[ok]
			}
			if got != want {
				t.Errorf("%s.Resolve(%v) = %s, want %s", v, ok, got, want)
			}
		}
		if v.Proceeds() != (v == policy.Allowed) {
			t.Errorf("%s.Proceeds() = %v", v, v.Proceeds())
		}
	}
	if policy.AutoApproveLowRiskRelease != "low-risk-release" {
		t.Errorf("autoApprove = %q", policy.AutoApproveLowRiskRelease)
	}
}

func TestModes(t *testing.T) {
	t.Parallel()
	if !slices.Equal(policy.Modes, []policy.Mode{"plan", "manual", "edits", "auto", "bypass"}) {
		t.Errorf("Modes = %v", policy.Modes)
	}
	for _, m := range policy.Modes {
		if got, ok := policy.ParseMode(string(m)); !ok || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, ok)
		}
	}
	if _, ok := policy.ParseMode("Auto"); ok {
		t.Error("ParseMode accepted Auto")
	}
}

// TestRunMode: min(key's effective mode, modeCap) (§11.2), never bypass in
// a run (§10.7), unknown modes fail closed.
func TestRunMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key, cap, want policy.Mode
	}{
		{"auto", "edits", "edits"},
		{"edits", "auto", "edits"},
		{"plan", "auto", "plan"},
		{"manual", "manual", "manual"},
		{"auto", "auto", "auto"},
		{"bypass", "auto", "auto"},
		{"bypass", "bypass", "auto"},
		{"auto", "bypass", "auto"},
		{"bypass", "plan", "plan"},
		{"yolo", "auto", "plan"},
		{"auto", "", "plan"},
	} {
		if got := policy.RunMode(tc.key, tc.cap); got != tc.want {
			t.Errorf("RunMode(%q, %q) = %q, want %q", tc.key, tc.cap, got, tc.want)
		}
	}
}

// TestAutoWindow: D9 / §10.7 — the window ends at the end of the key's
// elevation or 24 h after scheduling, whichever is first; a release must
// run by then; at run time it expires only when now > windowEnds (§10.6).
func TestAutoWindow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	ns := time.Nanosecond
	for _, tc := range []struct {
		name      string
		elevation *time.Time
		want      time.Time
	}{
		{"NoElevation", nil, now.Add(24 * time.Hour)},
		{"ElevationFirst", at(time.Hour), now.Add(time.Hour)},
		{"ElevationJustBefore24h", at(24*time.Hour - ns), now.Add(24*time.Hour - ns)},
		{"ElevationAt24h", at(24 * time.Hour), now.Add(24 * time.Hour)},
		{"ElevationAfter24h", at(30 * time.Hour), now.Add(24 * time.Hour)},
		{"ElevationAlreadyOver", at(-time.Minute), now.Add(-time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := policy.AutoWindowEnds(now, tc.elevation); !got.Equal(tc.want) {
				t.Errorf("AutoWindowEnds = %v, want %v", got, tc.want)
			}
		})
	}
	end := now.Add(time.Hour)
	for _, tc := range []struct {
		name      string
		executeAt time.Time
		want      bool
	}{
		{"WellInside", now.Add(10 * time.Minute), true},
		{"JustBeforeEnd", end.Add(-ns), true},
		{"AtEnd", end, true},
		{"JustAfterEnd", end.Add(ns), false},
		{"NextMonth", now.AddDate(0, 1, 0), false},
	} {
		t.Run("Allowed"+tc.name, func(t *testing.T) {
			if got := policy.AutoAllowed(tc.executeAt, end); got != tc.want {
				t.Errorf("AutoAllowed(%v, %v) = %v", tc.executeAt, end, got)
			}
		})
	}
	t.Run("Ended", func(t *testing.T) {
		if policy.AutoWindowEnded(end, end) || policy.AutoWindowEnded(end.Add(-ns), end) || !policy.AutoWindowEnded(end.Add(ns), end) {
			t.Error("AutoWindowEnded is not now > windowEnds")
		}
	})
	t.Run("OneHourOfElevationCannotPreApproveNextMonth", func(t *testing.T) {
		w := policy.AutoWindowEnds(now, at(time.Hour))
		if policy.AutoAllowed(now.AddDate(0, 1, 0), w) {
			t.Error("next month allowed under a one-hour elevation")
		}
		if !policy.AutoAllowed(now.Add(30*time.Minute), w) {
			t.Error("30 minutes ahead refused under a one-hour elevation")
		}
		w = policy.AutoWindowEnds(now, nil)
		if policy.AutoAllowed(now.Add(25*time.Hour), w) || !policy.AutoAllowed(now.Add(23*time.Hour), w) {
			t.Error("the 24 h bound is wrong")
		}
	})
}
