package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// Finding codes (the reference package README's where it names them).
const (
	CodeBrokenInternalLink  = "broken-internal-link"
	CodeBrokenMediaRef      = "broken-media-reference"
	CodeBrokenMenuTarget    = "broken-menu-target"
	CodeLinkToGated         = "link-to-gated-content"
	CodeNotFoundPath        = "not-found-path"
	CodeStaleEntry          = "stale-entry"
	CodeFeedUnreachable     = "feed-unreachable"
	CodeFeedInvalid         = "feed-invalid"
	CodeFeedItemIncomplete  = "feed-item-incomplete"
	CodeFeedFutureDate      = "feed-future-date"
	CodeFeedGatedNode       = "feed-gated-node"
	CodeFeedAssetNotLive    = "feed-asset-not-live"
	CodeStaleDraft          = "stale-draft"
	CodeUnusedAsset         = "unused-asset"
	CodeDigestPublished     = "digest-published"
	CodeDigestAttention     = "digest-attention"
	CodeDigestOpenFindings  = "digest-open-findings"
	CodeDigestNotFoundPaths = "digest-not-found-paths"
)

// Codes lists every finding code; each has the sentence "finding.<code>"
// in both languages (locales), with the finding's Target and Detail.
var Codes = []string{CodeBrokenInternalLink, CodeBrokenMediaRef, CodeBrokenMenuTarget, CodeLinkToGated,
	CodeNotFoundPath, CodeStaleEntry, CodeFeedUnreachable, CodeFeedInvalid, CodeFeedItemIncomplete,
	CodeFeedFutureDate, CodeFeedGatedNode, CodeFeedAssetNotLive, CodeStaleDraft, CodeUnusedAsset}

// Finding is one thing a job found, as it persists across runs.
type Finding struct {
	AutomationID string
	Key          string // FindingKey of code, node, field and target
	SiteID       string
	Job          automation.Builtin
	Code         string
	// NodeID and NodeKind name the node the finding is in ("" for a
	// site-wide one, such as a 404 path or a feed); the screen opens it in
	// the editor.
	NodeID   string
	NodeKind release.NodeKind
	Field    string // body, refs, menu, jsonld, og, rss, sitemap, ...
	Target   string // the link, reference or path
	// Detail says what is wrong in a word or two (missing, embargoed,
	// expired, the date, ...): a dismissed finding shows again when it
	// changes.
	Detail string
	Hits   int // how often (404 paths), else 0

	FirstRun string
	FirstAt  time.Time
	LastRun  string
	LastAt   time.Time
	GoneRun  string
	GoneAt   *time.Time

	DismissedDetail *string
	DismissedAt     *time.Time
	DismissedBy     string
}

// FindingKey is the stable key of a finding of an automation.
func FindingKey(code, nodeID, field, target string) string {
	sum := sha256.Sum256([]byte(code + "\x00" + nodeID + "\x00" + field + "\x00" + target))
	return hex.EncodeToString(sum[:16])
}

// Hidden reports whether a person marked f "Not a problem" and it has not
// changed since: it says what it said then, and it has not gone and come
// back after.
func (f Finding) Hidden() bool {
	return f.DismissedDetail != nil && *f.DismissedDetail == f.Detail &&
		f.DismissedAt != nil && !f.DismissedAt.Before(f.FirstAt)
}

// seen merges what a run found into the stored finding (nil when it is
// new): a finding seen again keeps its first run, one that comes back after
// it was gone starts again (it is new in this run), and seeing it twice in
// one run changes nothing — a step run again from its cursor writes the
// same row.
func seen(stored *Finding, found Finding, runID string, at time.Time) Finding {
	f := found
	f.LastRun, f.LastAt = runID, at
	f.FirstRun, f.FirstAt = runID, at
	if stored == nil {
		return f
	}
	f.DismissedDetail, f.DismissedAt, f.DismissedBy = stored.DismissedDetail, stored.DismissedAt, stored.DismissedBy
	if stored.GoneRun == "" {
		f.FirstRun, f.FirstAt = stored.FirstRun, stored.FirstAt
	}
	if stored.LastRun == runID {
		f.LastAt = stored.LastAt // the same run: the step ran again
	}
	return f
}

// Excluded reports whether target, as written or as the path it names
// (InternalPath), matches one of the patterns: a pattern is a path in
// which '*' matches any run of characters ("/legacy/*").
func Excluded(patterns []string, target string) bool {
	p, internal := InternalPath(target)
	for _, pat := range patterns {
		if pat = strings.TrimSpace(pat); pat != "" && (glob(pat, target) || internal && glob(pat, p)) {
			return true
		}
	}
	return false
}

func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, last)
}

// RunFindings is what a run's page shows: the findings new in this run,
// those still there since an earlier run, and those it found fixed (gone).
// Findings a person marked "Not a problem" are counted in Hidden and left
// out, unless they were asked for.
type RunFindings struct {
	New, Still, Fixed []Finding
	Hidden            int
}

// RunFindings lists the findings of a run of automationID (§11.7: a run's
// page shows what is new and what was fixed since the last run). With
// withHidden, dismissed findings are listed too.
func (j *Jobs) RunFindings(ctx context.Context, automationID, runID string, withHidden bool) (RunFindings, error) {
	rows, err := j.store.RunFindings(ctx, automationID, runID)
	if err != nil {
		return RunFindings{}, err
	}
	var out RunFindings
	for _, r := range rows {
		switch {
		case r.Seen == SeenGone:
			out.Fixed = append(out.Fixed, r.Finding)
		case r.Hidden() && !withHidden:
			out.Hidden++
		case r.Seen == SeenNew:
			out.New = append(out.New, r.Finding)
		default:
			out.Still = append(out.Still, r.Finding)
		}
	}
	return out, nil
}

// Dismiss marks a finding "Not a problem" for u (people with
// automations:manage): it is hidden until it changes. The finding's key is
// Finding.Key. A finding of another site's automation is not found.
func (j *Jobs) Dismiss(ctx context.Context, u engine.User, siteID, automationID, key string) error {
	if err := engine.Require(u, siteID, policy.AutomationsManage); err != nil {
		return err
	}
	fs, err := j.store.Findings(ctx, automationID, []string{key})
	if err != nil {
		return err
	}
	if len(fs) == 0 || fs[0].SiteID != siteID {
		return engine.ErrNotFound
	}
	return j.store.DismissFinding(ctx, automationID, key, fs[0].Detail, u.ID, j.now())
}

// Bounds and refusals of the exclude patterns (Config.Exclude), one code
// per rule.
const (
	MaxExcludePatterns = 50
	CodeExcludeInvalid = "exclude_invalid"
	CodeExcludeTooMany = "exclude_too_many"
)

// CleanExclude checks and tidies the exclude patterns a person typed, for
// the automation editor to store in the job's config: each a path (starting
// with "/", one line, at most MaxPathBytes bytes) in which '*' matches any
// characters; blank lines and repeats are dropped. The error is an
// *engine.Error on the field "exclude".
func CleanExclude(patterns []string) ([]string, error) {
	var out []string
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" || slices.Contains(out, p) {
			continue
		}
		if !strings.HasPrefix(p, "/") || len(p) > MaxPathBytes || strings.ContainsAny(p, "\r\n\t") || !utf8.ValidString(p) {
			return nil, engine.Refuse(CodeExcludeInvalid, "exclude")
		}
		out = append(out, p)
	}
	if len(out) > MaxExcludePatterns {
		return nil, engine.Refuse(CodeExcludeTooMany, "exclude")
	}
	return out, nil
}
