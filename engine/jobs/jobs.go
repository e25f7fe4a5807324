package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"studio/engine/model/automation"
)

// Clock is where use cases a person calls (Dismiss) take their instant:
// the kernel engine.
type Clock interface{ Now() time.Time }

// Jobs runs the built-in job bodies on a store; feed-check renders the
// public site through the Renderer.
type Jobs struct {
	store  Store
	render atomic.Pointer[Renderer] // set once at wiring (SetRenderer)
	clock  Clock

	mu      sync.Mutex
	indexes map[string]*liveIndex // by snapshot id: snapshots never change
}

// New wires the job bodies. clock is the kernel engine (*engine.Engine);
// render answers public paths as handlers/site would (nil: feed-check
// fails its runs until SetRenderer gives it one).
func New(clock Clock, st Store, render Renderer) *Jobs {
	j := &Jobs{store: st, clock: clock, indexes: map[string]*liveIndex{}}
	if render != nil {
		j.SetRenderer(render)
	}
	return j
}

// SetRenderer gives feed-check the public site to render: the handlers
// make it (handlers.New), after the use cases are wired.
func (j *Jobs) SetRenderer(r Renderer) { j.render.Store(&r) }

// renderer is the public site feed-check renders, or nil.
func (j *Jobs) renderer() Renderer {
	if r := j.render.Load(); r != nil {
		return *r
	}
	return nil
}

var _ Stepper = (*Jobs)(nil)

func (j *Jobs) now() time.Time { return j.clock.Now().UTC().Truncate(time.Millisecond) }

// cursor is a run's position and tally, carried from step to step in the
// runner's opaque cursor: a step run again from the same cursor does the
// same work and reaches the same counts.
type cursor struct {
	Phase    string         `json:"p,omitempty"`
	After    string         `json:"a,omitempty"`
	Counts   map[string]int `json:"c,omitempty"`
	Recorded int            `json:"f,omitempty"` // findings the run recorded
	Dropped  int            `json:"d,omitempty"` // findings past MaxFindings, not recorded
}

func decodeCursor(s string) (*cursor, error) {
	c := &cursor{}
	if s != "" {
		if err := json.Unmarshal([]byte(s), c); err != nil {
			return nil, fmt.Errorf("jobs: bad cursor: %w", err)
		}
	}
	if c.Counts == nil {
		c.Counts = map[string]int{}
	}
	return c, nil
}

func (c *cursor) encode() string {
	data, err := json.Marshal(c)
	if err != nil {
		panic("jobs: cursor does not encode: " + err.Error()) // plain fields: cannot happen
	}
	return string(data)
}

// Step runs one bounded step of run's job from cursor (RFC §11.1): at most
// MaxNodesPerStep nodes read and one short write transaction.
func (j *Jobs) Step(ctx context.Context, run Run, cursorText string) (Step, error) {
	c, err := decodeCursor(cursorText)
	if err != nil {
		return Step{}, err
	}
	var done bool
	switch run.Job {
	case automation.BuiltinBrokenLinks:
		done, err = j.brokenLinks(ctx, run, c)
	case automation.BuiltinStaleContent:
		done, err = j.staleContent(ctx, run, c)
	case automation.BuiltinFeedCheck:
		done, err = j.feedCheck(ctx, run, c)
	case automation.BuiltinWeeklyDigest:
		done, err = j.weeklyDigest(ctx, run, c)
	case automation.BuiltinCleanup:
		done, err = j.cleanup(ctx, run, c)
	default:
		return Step{}, fmt.Errorf("jobs: unknown job %q", run.Job)
	}
	if err != nil {
		return Step{}, err
	}
	return Step{Cursor: c.encode(), Done: done, Counts: c.Counts, Findings: c.Recorded}, nil
}

// record writes what a step found: each finding once (a key found twice in
// one step is one finding), at most MaxFindings in the run, the rest only
// counted. With last, the sweep is complete and the findings the run did
// not see are gone — unless some were dropped past the cap, since those
// were seen without being recorded.
func (j *Jobs) record(ctx context.Context, run Run, c *cursor, found []Finding, last bool) error {
	byKey := map[string]bool{}
	var batch []Finding
	var keys []string
	for _, f := range found {
		f.Key = FindingKey(f.Code, f.NodeID, f.Field, f.Target)
		if byKey[f.Key] {
			continue
		}
		byKey[f.Key] = true
		if c.Recorded+len(batch) >= MaxFindings {
			c.Dropped++
			continue
		}
		f.AutomationID, f.SiteID, f.Job = run.AutomationID, run.SiteID, run.Job
		batch = append(batch, f)
		keys = append(keys, f.Key)
	}
	if len(batch) == 0 && !last {
		return nil
	}
	at := run.Now.UTC().Truncate(time.Millisecond)
	if len(keys) > 0 {
		stored, err := j.store.Findings(ctx, run.AutomationID, keys)
		if err != nil {
			return err
		}
		old := make(map[string]*Finding, len(stored))
		for i := range stored {
			old[stored[i].Key] = &stored[i]
		}
		for i, f := range batch {
			batch[i] = seen(old[f.Key], f, run.ID, at)
		}
	}
	w := FindingsWrite{AutomationID: run.AutomationID, RunID: run.ID, Findings: batch, At: at,
		Gone: last && c.Dropped == 0}
	if len(batch) == 0 && !w.Gone {
		return nil
	}
	if err := j.store.SaveFindings(ctx, w); err != nil {
		return err
	}
	c.Recorded += len(batch)
	return nil
}
