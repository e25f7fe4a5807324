package jobs

import (
	"context"
	"slices"
	"strings"
	"time"

	"studio/engine/model/automation"
)

// DigestTopPaths is how many 404 paths a digest names.
const DigestTopPaths = 5

// Fields of the digest's section findings: each holds one number (Hits).
const (
	digestPublished = "published"
	digestLate      = "late"
	digestMissed    = "missed"
	digestConflicts = "conflicts"
	digestFailed    = "failed"
	digestStale     = "stale-entries"
	digestOpen      = "open:" // + the job
)

// Counts of weekly-digest (the README's names).
const (
	CountPublished      = "published"
	CountNeedsAttention = "needs-attention"
	CountOpenFindings   = "open-findings"
)

// Digest is what a weekly-digest run found: the automation-digest
// notification and the run's page render it (Sentences) in the reader's
// language.
type Digest struct {
	RunID    string
	From, To time.Time // the week: the 7 days before the run's instant
	Releases ReleaseOutcomes
	// Stale is how many live entries were not updated for
	// automation.DefaultStaleAfterDays.
	Stale int
	// Open is the open findings of the site's jobs (not gone, not
	// dismissed), by job.
	Open map[automation.Builtin]int
	// NotFound are the week's most requested missing paths.
	NotFound []NotFoundPath
}

// OpenFindings is the sum of Open.
func (d Digest) OpenFindings() int {
	n := 0
	for _, c := range d.Open {
		n += c
	}
	return n
}

// weeklyDigest gathers the week in one step and keeps it as the run's
// section findings, from which Digest rebuilds it.
func (j *Jobs) weeklyDigest(ctx context.Context, run Run, c *cursor) (bool, error) {
	c.Counts[CountSteps]++
	to := run.Now.UTC().Truncate(time.Millisecond)
	outcomes, err := j.store.ReleaseOutcomes(ctx, run.SiteID, to.AddDate(0, 0, -7), to)
	if err != nil {
		return false, err
	}
	site, err := j.store.Site(ctx, run.SiteID)
	if err != nil {
		return false, err
	}
	stale := 0
	if site.PublishedSnapshotID != "" {
		if stale, err = j.store.StaleEntries(ctx, site.PublishedSnapshotID, to.AddDate(0, 0, -automation.DefaultStaleAfterDays)); err != nil {
			return false, err
		}
	}
	open, err := j.store.OpenFindings(ctx, run.SiteID)
	if err != nil {
		return false, err
	}
	top, err := j.TopNotFound(ctx, run.SiteID, to, DigestTopPaths)
	if err != nil {
		return false, err
	}
	section := func(code, field string, n int) Finding {
		return Finding{Code: code, Field: field, Hits: n}
	}
	found := []Finding{
		section(CodeDigestPublished, digestPublished, outcomes.Published),
		section(CodeDigestPublished, digestLate, outcomes.Late),
		section(CodeDigestAttention, digestMissed, outcomes.Missed),
		section(CodeDigestAttention, digestConflicts, outcomes.Conflicts),
		section(CodeDigestAttention, digestFailed, outcomes.Failed),
		section(CodeDigestAttention, digestStale, stale),
	}
	total := 0
	for _, b := range automation.Builtins {
		if b == automation.BuiltinWeeklyDigest {
			continue
		}
		n := open[string(b)]
		total += n
		found = append(found, section(CodeDigestOpenFindings, digestOpen+string(b), n))
	}
	for _, p := range top {
		found = append(found, Finding{Code: CodeDigestNotFoundPaths, Field: "404", Target: p.Path, Hits: p.Hits})
	}
	c.Counts[CountPublished] = outcomes.Published
	c.Counts[CountNeedsAttention] = outcomes.Missed + outcomes.Conflicts + outcomes.Failed
	c.Counts[CountOpenFindings] = total
	c.Counts[CountStaleEntries] = stale
	c.Counts[CodeNotFoundPath] = len(top)
	return true, j.record(ctx, run, c, found, true)
}

// Digest returns the digest a weekly-digest run of automationID recorded
// (ErrNotFound-free: a run with no sections gives a zero Digest with its
// RunID), for the automation-digest notification and the run's page.
func (j *Jobs) Digest(ctx context.Context, automationID, runID string) (Digest, error) {
	rows, err := j.store.RunFindings(ctx, automationID, runID)
	if err != nil {
		return Digest{}, err
	}
	d := Digest{RunID: runID, Open: map[automation.Builtin]int{}}
	for _, r := range rows {
		if r.Seen == SeenGone {
			continue // a section of an earlier digest this one no longer has
		}
		f := r.Finding
		if d.To.IsZero() || f.LastAt.After(d.To) {
			d.To = f.LastAt
		}
		switch {
		case f.Code == CodeDigestNotFoundPaths:
			d.NotFound = append(d.NotFound, NotFoundPath{Path: f.Target, Hits: f.Hits})
		case strings.HasPrefix(f.Field, digestOpen):
			d.Open[automation.Builtin(strings.TrimPrefix(f.Field, digestOpen))] = f.Hits
		case f.Field == digestPublished:
			d.Releases.Published = f.Hits
		case f.Field == digestLate:
			d.Releases.Late = f.Hits
		case f.Field == digestMissed:
			d.Releases.Missed = f.Hits
		case f.Field == digestConflicts:
			d.Releases.Conflicts = f.Hits
		case f.Field == digestFailed:
			d.Releases.Failed = f.Hits
		case f.Field == digestStale:
			d.Stale = f.Hits
		}
	}
	if !d.To.IsZero() {
		d.From = d.To.AddDate(0, 0, -7)
	}
	slices.SortStableFunc(d.NotFound, func(a, b NotFoundPath) int { return b.Hits - a.Hits })
	return d, nil
}

// Sentences are the digest's lines, for the notification and the run's
// page to render in the reader's language with locales.For(lang).T.
func (d Digest) Sentences() []Sentence {
	r := d.Releases
	out := []Sentence{
		{Key: "digest.published", Args: []any{"Count", r.Published, "Late", r.Late}},
		{Key: "digest.attention", Args: []any{"Count", r.Missed + r.Conflicts + r.Failed, "Missed", r.Missed, "Conflicts", r.Conflicts, "Failed", r.Failed}},
		{Key: "digest.stale", Args: []any{"Count", d.Stale}},
		{Key: "digest.open_findings", Args: []any{"Count", d.OpenFindings()}},
	}
	for _, p := range d.NotFound {
		out = append(out, Sentence{Key: "digest.not_found", Args: []any{"Path", p.Path, "Count", p.Hits}})
	}
	return out
}
