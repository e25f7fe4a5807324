package automations

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/model/automation"
)

// Run is one ScheduleRun (RFC §4.4): an occurrence of a release or of an
// automation, its state and, apart from it, its outcome ("ran" is not "did
// something").
type Run struct {
	ID     string
	SiteID string
	// SubjectKind is SubjectRelease or SubjectAutomation; SubjectID the
	// release's or the automation's id.
	SubjectKind string
	SubjectID   string
	// Job is the automation's job kind (builtin | agent-task); "" for a
	// release.
	Job          string
	OccurrenceAt time.Time
	State        string // an automation.RunState
	Outcome      string // an automation.Outcome, or ""
	Trigger      string // cron | alarm | request | node | manual
	Attempt      int
	StartedAt    *time.Time
	EndedAt      *time.Time
	// LatenessSeconds is how late the run started after its occurrence.
	LatenessSeconds *int64
	// Adjusted is "dst-gap" when a clock change moved the occurrence.
	Adjusted string
	// Counts are the run's counts (§4.4): the job's own keys, or
	// "coalesced" on a skipped run standing for missed occurrences.
	Counts       map[string]int
	ErrorCode    string
	ErrorMessage string
	// Cursor is where the next step of a running built-in starts
	// (internal: jobs.Step's cursor).
	Cursor string
	// Agent runs (§4.4): when the run ends, its ledger (usage, taint,
	// anomaly counters), its effective mode, the key that began it and
	// end_run's summary.
	EndsAt     *time.Time
	Ledger     automation.RunLedger
	Mode       string
	KeyID      string
	Summary    string
	LeaseToken string
	LeaseUntil *time.Time
	Rev        int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Subject kinds of a run (§4.4).
const (
	SubjectRelease    = "release"
	SubjectAutomation = "automation"
)

// TriggerManual is a person's run now.
const TriggerManual = "manual"

// Open reports whether the run has not ended.
func (r Run) Open() bool { return !automation.RunState(r.State).Terminal() }

// RunFilter selects runs (§12 list_runs, GET …/runs).
type RunFilter struct {
	SiteID       string
	AutomationID string
	ReleaseID    string
	State        string
	Outcome      string
	// Before continues a listing: runs strictly older (by occurrence, then
	// id) than this position.
	Before *RunPosition
	Limit  int
}

// RunPosition is a run's place in History's order.
type RunPosition struct {
	OccurrenceAt time.Time
	ID           string
}

// Runs limits.
const (
	DefaultRunsLimit = 50
	MaxRunsLimit     = 200
)

// RunPage is one page of runs and the cursor of the next ("" at the end).
type RunPage struct {
	Runs       []Run
	NextCursor string
}

// RunsQuery is what GET …/runs asks: filters, an opaque cursor from a
// previous page, and a limit (1..200; 0 is 50).
type RunsQuery struct {
	AutomationID string
	ReleaseID    string
	State        string
	Outcome      string
	Cursor       string
	Limit        int
}

// Runs lists a site's runs, releases' and automations' alike, newest
// occurrence first (schedules:read). A state or outcome that is not one of
// §4.4's, a limit out of 0..200 or a cursor this package did not give is refused.
func (e *Automations) Runs(ctx context.Context, u engine.User, siteID string, q RunsQuery) (RunPage, error) {
	if err := mayRead(u, siteID); err != nil {
		return RunPage{}, err
	}
	f := RunFilter{SiteID: siteID, AutomationID: strings.TrimSpace(q.AutomationID), ReleaseID: strings.TrimSpace(q.ReleaseID),
		State: strings.TrimSpace(q.State), Outcome: strings.TrimSpace(q.Outcome), Limit: q.Limit}
	if f.State != "" {
		if _, err := automation.ParseRunState(f.State); err != nil {
			return RunPage{}, refuse(automation.CodeUnknownRunState, "state")
		}
	}
	if f.Outcome != "" {
		if _, err := automation.ParseOutcome(f.Outcome); err != nil {
			return RunPage{}, refuse(automation.CodeUnknownOutcome, "outcome")
		}
	}
	switch {
	case f.Limit == 0:
		f.Limit = DefaultRunsLimit
	case f.Limit < 0 || f.Limit > MaxRunsLimit:
		return RunPage{}, refuse("bad_limit", "limit")
	}
	if q.Cursor != "" {
		pos, ok := decodeCursor(q.Cursor)
		if !ok {
			return RunPage{}, refuse(CodeBadCursor, "cursor")
		}
		f.Before = &pos
	}
	want := f.Limit
	f.Limit++ // one more says whether there is a next page
	runs, err := e.store.Runs(ctx, f)
	if err != nil {
		return RunPage{}, err
	}
	page := RunPage{Runs: runs}
	if len(runs) > want {
		page.Runs = runs[:want]
		last := page.Runs[want-1]
		page.NextCursor = encodeCursor(RunPosition{OccurrenceAt: last.OccurrenceAt, ID: last.ID})
	}
	return page, nil
}

// Run is one run of a site (GET …/runs/{runId}; schedules:read).
func (e *Automations) Run(ctx context.Context, u engine.User, siteID, id string) (Run, error) {
	if err := mayRead(u, siteID); err != nil {
		return Run{}, err
	}
	return e.store.Run(ctx, siteID, id)
}

func encodeCursor(p RunPosition) string {
	return base64.RawURLEncoding.EncodeToString([]byte(localtime.FormatInstant(p.OccurrenceAt) + " " + p.ID))
}

func decodeCursor(s string) (RunPosition, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return RunPosition{}, false
	}
	at, id, ok := strings.Cut(string(b), " ")
	if !ok || !strings.HasPrefix(id, "run_") {
		return RunPosition{}, false
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z", at)
	if err != nil {
		return RunPosition{}, false
	}
	return RunPosition{OccurrenceAt: t, ID: id}, true
}

// Trail is what a run left: the ids of its audit rows, oldest first (a
// release run's publish, an agent run's tool calls and the acts they
// made), the snapshots they published, the approval requests it filed and
// the releases its acts made or changed, in the order it first touched
// them.
type Trail struct {
	AuditRowIDs []int64
	Snapshots   []string
	Approvals   []string
	Releases    []string
}

// RunDetail is a run with what it left (§12 get_run: ScheduleRun +
// {auditRowIds, snapshots, approvals}).
type RunDetail struct {
	Run
	Trail
}

// RunDetail is one run of a site with its trail (schedules:read).
func (e *Automations) RunDetail(ctx context.Context, u engine.User, siteID, id string) (RunDetail, error) {
	r, err := e.Run(ctx, u, siteID, id)
	if err != nil {
		return RunDetail{}, err
	}
	trail, err := e.store.RunTrail(ctx, siteID, id)
	if err != nil {
		return RunDetail{}, err
	}
	d := RunDetail{Run: r, Trail: trail}
	for _, l := range []*[]string{&d.Snapshots, &d.Approvals, &d.Releases} {
		if *l == nil {
			*l = []string{}
		}
	}
	if d.AuditRowIDs == nil {
		d.AuditRowIDs = []int64{}
	}
	return d, nil
}
