package scheduler_test

import (
	"context"
	"log/slog"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"sync"
	"testing"
	"time"

	"studio/engine"
)

// records keeps the log records a test's engine writes.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.Clone())
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// ticks returns the attributes of each "schedules tick" record.
func (r *records) ticks() []map[string]slog.Value {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]slog.Value
	for _, rec := range r.recs {
		if rec.Message != "schedules tick" {
			continue
		}
		m := map[string]slog.Value{}
		rec.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value; return true })
		out = append(out, m)
	}
	return out
}

// TestHeartbeatLagAndTickLog: each heartbeat records the lag of the oldest
// due item (§8.7), and each tick writes one structured log line, idle or
// not.
func TestHeartbeatLagAndTickLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	logs := &records{}
	eng := releases.New(engine.New(b.Store, b.Clock, nil), b.Store)
	sched := scheduler.New(eng, b.Store, slog.New(logs))

	if _, err := sched.RunDue(ctx, "node"); err != nil { // idle: nothing due
		t.Fatal(err)
	}
	hb, err := sched.Heartbeat(ctx)
	if err != nil || hb.LagSeconds != 0 {
		t.Fatalf("idle heartbeat: %+v, %v; want lag 0", hb, err)
	}
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00") // 06:00Z
	second := b.Article.Body
	second.Title, second.Slug = "Turnout", "turnout"
	b.Schedule(t, b.Editor, b.CreateNode(t, b.Site.ID, b.Article.Kind, second), "2026-11-02", "09:02")
	// The ticker was away: at 09:03:20 the oldest due item is 200 s late.
	b.Clock.Set(time.Date(2026, 11, 2, 6, 3, 20, 0, time.UTC))
	rep, err := sched.RunDue(ctx, "node")
	if err != nil || rep.Ran != 2 || rep.LagSeconds != 200 {
		t.Fatalf("late tick: %+v, %v; want 2 ran, lag 200", rep, err)
	}
	if hb, err = sched.Heartbeat(ctx); err != nil || hb.LagSeconds != 200 {
		t.Fatalf("heartbeat after a late tick: %+v, %v; want lag 200", hb, err)
	}
	if got := b.Release(t, r.ID).State; got != "published" {
		t.Fatalf("state %s", got)
	}

	ticks := logs.ticks()
	if len(ticks) != 2 {
		t.Fatalf("%d tick log lines for 2 ticks: %v", len(ticks), ticks)
	}
	last := ticks[1]
	for key, want := range map[string]string{"trigger": "node", "ran": "2", "more": "false", "lag_s": "200",
		"next_wake": "2026-11-02T06:04:20Z", "duration": "0s"} {
		if v, ok := last[key]; !ok || v.String() != want {
			t.Errorf("tick log %s = %v, want %s (line %v)", key, v, want, last)
		}
	}
	if ticks[0]["ran"].String() != "0" || ticks[0]["lag_s"].String() != "0" {
		t.Errorf("idle tick log: %v", ticks[0])
	}
}
