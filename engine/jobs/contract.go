// Package jobs holds the bodies of the five built-in automation jobs
// (RFC §11.1): broken-links, stale-content, feed-check, weekly-digest and
// cleanup. The automations runner (engine/scheduler) claims a run and
// calls Step once per tick until the job says it is done; each step reads
// at most MaxNodesPerStep nodes and writes its findings in one short
// transaction, so a sweep of a large site spans several ticks and never
// holds the write lock for long. A step killed half-way is run again from
// the same cursor and records nothing twice (findings are keyed).
//
// The server makes no outbound requests for any job (§11.4's no-egress rule
// holds for built-ins too): links are resolved against the site's own live
// routes at the run's instant, gates included.
package jobs

import (
	"context"
	"time"

	"studio/engine/model/automation"
)

// Bounds of one run (§11.1).
const (
	MaxNodesPerStep = 200 // nodes one step reads
	MaxFindings     = 200 // findings one run records; the counts go on
)

// Config is a built-in job's own fields (§4.3 job.config).
type Config struct {
	// StaleAfterDays is stale-content's threshold (30..1095; 0 means
	// automation.DefaultStaleAfterDays).
	StaleAfterDays int
	// Exclude lists path patterns broken-links does not report (a path
	// with '*' matching any run of characters, e.g. "/legacy/*").
	Exclude []string
}

// Run is the run a step belongs to.
type Run struct {
	ID           string // the ScheduleRun's id (deterministic: automation and occurrence)
	AutomationID string
	SiteID       string
	Job          automation.Builtin
	Config       Config
	OccurrenceAt time.Time // the occurrence the run stands for
	Now          time.Time // the tick's instant: what "live" and "gated" mean for this step
}

// Step is what one step reached.
type Step struct {
	// Cursor is where the next step starts: opaque to the runner, which
	// stores it with the run and passes it back ("" the first time).
	Cursor string
	// Done: the run has nothing more to do; the runner ends it.
	Done bool
	// Counts are the run's counts so far, cumulative over its steps, under
	// the job's own keys (checked, broken, stale, ...): the run's counts
	// (§4.4) when it ends.
	Counts map[string]int
	// Findings is how many findings the run has recorded so far (at most
	// MaxFindings). A run that ends with none did nothing to do.
	Findings int
}

// Stepper runs one step of a built-in job; *Jobs is the real one, and the
// runner's tests may use a fake.
type Stepper interface {
	Step(ctx context.Context, run Run, cursor string) (Step, error)
}

// Renderer answers a public path of a site as the real public handlers
// would at an instant (feed-check renders /rss.xml, /sitemap.xml and each
// entry's page through it). cmd/studio wires handlers/site's; the engine
// cannot import the handlers.
type Renderer interface {
	Render(ctx context.Context, siteID, path string, at time.Time) (status int, body []byte, err error)
}
