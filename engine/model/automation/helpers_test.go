package automation

import (
	"errors"
	"sort"
	"testing"
	"time"

	"studio/engine/recurrence"

	"studio/engine/policy"
)

// code returns the *Error code of err, "" for nil, and "not *Error" otherwise.
func code(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		return "not *Error"
	}
	return e.Code
}

func wantCode(t *testing.T, err error, want string) {
	t.Helper()
	if got := code(err); got != want {
		t.Fatalf("error %v: code %q, want %q", err, got, want)
	}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func occ(t time.Time) recurrence.Occurrence { return recurrence.Occurrence{At: t} }

// listSchedule is a fake Schedule over a fixed, sorted list of instants.
type listSchedule []time.Time

func newList(ts ...time.Time) listSchedule {
	l := append(listSchedule(nil), ts...)
	sort.Slice(l, func(i, j int) bool { return l[i].Before(l[j]) })
	return l
}

// countBefore is the number of occurrences strictly before t.
func (l listSchedule) countBefore(t time.Time) int {
	return sort.Search(len(l), func(i int) bool { return !l[i].Before(t) })
}

func (l listSchedule) Next(after time.Time) (recurrence.Occurrence, bool) {
	i := sort.Search(len(l), func(i int) bool { return l[i].After(after) })
	if i == len(l) {
		return recurrence.Occurrence{}, false
	}
	return occ(l[i]), true
}

func (l listSchedule) Latest(t time.Time) (recurrence.Occurrence, bool) {
	i := sort.Search(len(l), func(i int) bool { return l[i].After(t) })
	if i == 0 {
		return recurrence.Occurrence{}, false
	}
	return occ(l[i-1]), true
}

func (l listSchedule) CountBetween(from, to time.Time) int {
	if !from.Before(to) {
		return 0
	}
	return l.countBefore(to) - l.countBefore(from)
}

// hourly is a fake Schedule answering arithmetically: an occurrence every
// hour from start, n of them (n = 0: without end).
type hourly struct {
	start time.Time
	n     int64
}

// index returns how many occurrences lie strictly before t, without the cap.
func (h hourly) before(t time.Time) int64 {
	if !t.After(h.start) {
		return 0
	}
	d := t.Sub(h.start) // saturates far away; fine for the tests' years
	k := int64(d / time.Hour)
	if d%time.Hour != 0 {
		k++
	}
	return h.capped(k)
}

func (h hourly) capped(k int64) int64 {
	if h.n > 0 && k > h.n {
		return h.n
	}
	return k
}

func (h hourly) at(k int64) time.Time { return h.start.Add(time.Duration(k) * time.Hour) }

func (h hourly) Next(after time.Time) (recurrence.Occurrence, bool) {
	k := int64(0)
	if !after.Before(h.start) {
		k = int64(after.Sub(h.start)/time.Hour) + 1
	}
	if h.n > 0 && k >= h.n {
		return recurrence.Occurrence{}, false
	}
	return occ(h.at(k)), true
}

func (h hourly) Latest(t time.Time) (recurrence.Occurrence, bool) {
	if t.Before(h.start) {
		return recurrence.Occurrence{}, false
	}
	k := int64(t.Sub(h.start) / time.Hour)
	if h.n > 0 && k >= h.n {
		k = h.n - 1
	}
	return occ(h.at(k)), true
}

func (h hourly) CountBetween(from, to time.Time) int {
	if !from.Before(to) {
		return 0
	}
	return int(h.before(to) - h.before(from))
}

// all enumerates the occurrences of h up to limit, one by one: the brute
// force the property tests compare against.
func (h hourly) all(limit time.Time) []time.Time {
	var out []time.Time
	for k := int64(0); h.n == 0 || k < h.n; k++ {
		t := h.at(k)
		if t.After(limit) {
			break
		}
		out = append(out, t)
	}
	return out
}

// counting wraps a Schedule and counts its calls.
type counting struct {
	Schedule
	next, latest, between int
}

func (c *counting) Next(after time.Time) (recurrence.Occurrence, bool) {
	c.next++
	return c.Schedule.Next(after)
}

func (c *counting) Latest(t time.Time) (recurrence.Occurrence, bool) {
	c.latest++
	return c.Schedule.Latest(t)
}

func (c *counting) CountBetween(from, to time.Time) int {
	c.between++
	return c.Schedule.CountBetween(from, to)
}

func boolPtr(b bool) *bool { return &b }

// agentJob is a valid agent task.
func agentJob() Job {
	b := DefaultBudget
	return Job{Kind: JobAgentTask, KeyID: "key_1", Instructions: "Label new comments.\nHide spam.",
		ModeCap: policy.ModeEdits, ReadsUntrustedText: boolPtr(true), WindowMinutes: 30, Budget: &b}
}
