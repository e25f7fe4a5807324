package automation

import (
	"slices"
	"strings"
	"time"

	"studio/engine/policy"
)

// Tools this package names. Their classes come from engine/policy's tool
// table and are passed in by the caller.
const (
	ToolListComments     = "list_comments"
	ToolGetCommentThread = "get_comment_thread"
	ToolBrokenLinks      = "broken_links"
	ToolGetAnalytics     = "get_analytics"
	ToolTopContent       = "top_content"
	ToolFetchAssetURL    = "fetch_asset_url"
	ToolLabelComments    = "label_comments"
	ToolRequestElevation = "request_elevation"
)

// The call classes of §10.3 that a tainted run may still use.
const (
	ClassRead   = string(policy.ClassRead)
	ClassReduce = string(policy.ClassReduce)
)

// Anomaly limits of one run (§11.4 rule 6).
const (
	MaxReduceCalls         = 50
	MaxConsecutiveRefusals = 10
)

// TaintingTools lists the tools that taint a run when called, sorted: the
// tools of engine/policy's table that return visitor-supplied text (reader
// text, 404 paths, referrer hosts and UTM values, fetched content).
func TaintingTools() []string {
	var out []string
	for _, t := range policy.Tools() {
		if t.Taints {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Taints reports whether calling tool taints the run (§11.4 rule 1).
func Taints(tool string) bool {
	t, ok := policy.Tool(tool)
	return ok && t.Taints
}

// RunLedger is what the server keeps about an open agent run's calls: its
// taint, its budget usage and the anomaly counters (§11.4, §11.5).
type RunLedger struct {
	Taint               *Taint
	Usage               Usage
	ReduceCalls         int // reduce-class calls that went through
	ConsecutiveRefusals int // refused calls since the last one that went through
}

// Tainted reports whether the run has read untrusted text.
func (r RunLedger) Tainted() bool { return r.Taint != nil }

// CheckCall decides whether a run may make a call of tool, whose class
// (read, advisory, reduce, publish, person: §10.3) the caller takes from the
// tool table. It refuses, in this order:
//
//   - request_elevation with code "run": a run's autonomy is fixed by its
//     modeCap (§10.7);
//   - fetch_asset_url with CodeNoEgress: no egress in runs (§11.4 rule 2);
//   - in a tainted run, anything but read-class tools, label_comments and
//     reduce-class tools, with CodeTainted (§11.4 rule 1);
//   - the reduce call that would be the 51st, with CodeAnomalyReduceCalls:
//     the run must be killed before it happens (§11.4 rule 6).
//
// Mode and scope checks are engine/policy's; budgets are CheckBudget's.
func CheckCall(run RunLedger, tool, class string) error {
	switch {
	case tool == ToolRequestElevation:
		return &Error{Code: CodeElevationInRun, Tool: tool}
	case tool == ToolFetchAssetURL:
		return &Error{Code: CodeNoEgress, Tool: tool}
	case run.Tainted() && class != ClassRead && class != ClassReduce && tool != ToolLabelComments:
		return &Error{Code: CodeTainted, Tool: tool}
	case class == ClassReduce && run.ReduceCalls >= MaxReduceCalls:
		return &Error{Code: CodeAnomalyReduceCalls, Tool: tool}
	}
	return nil
}

// Call is one call a run made, as AfterCall records it.
type Call struct {
	Tool  string
	Class string
	// Refused is set when the call was refused for any reason (tainted,
	// denied by policy, out of scope): it counts toward the anomaly rule,
	// unless NotFound.
	Refused bool
	// NotFound: the call named something that does not exist (not_found).
	// An agent looking things up is not being refused anything: the call
	// counts as a call, neither toward nor against the refusals in a row.
	NotFound bool
	// Write is set when the call wrote a snapshot (§11.5 "writes").
	Write bool
	// ApprovalRequest is set when the call filed an approval request.
	ApprovalRequest bool
}

// AfterCall records a call in the run's ledger at now. Every call counts as
// a tool call, refused or not, since each is an audited call (§11.5). A
// refused call adds to the consecutive refusals and nothing else; a call
// that went through resets them, counts its write, approval request and
// reduce class, and, when its tool taints, records the run's taint unless an
// earlier call already did: the contract's taint is the first {at, tool}.
func AfterCall(run RunLedger, c Call, now time.Time) RunLedger {
	run.Usage.ToolCalls++
	if c.NotFound {
		return run
	}
	if c.Refused {
		run.ConsecutiveRefusals++
		return run
	}
	run.ConsecutiveRefusals = 0
	if c.Write {
		run.Usage.Writes++
	}
	if c.ApprovalRequest {
		run.Usage.ApprovalRequests++
	}
	if c.Class == ClassReduce {
		run.ReduceCalls++
	}
	if Taints(c.Tool) && run.Taint == nil {
		run.Taint = &Taint{At: now, Tool: c.Tool}
	}
	return run
}

// Anomaly returns an *Error when the run must be killed and its automation
// paused (§11.4 rule 6): more than MaxReduceCalls reduce calls
// (CodeAnomalyReduceCalls) or MaxConsecutiveRefusals refusals in a row
// (CodeAnomalyRefusals). Otherwise nil.
func Anomaly(run RunLedger) error {
	switch {
	case run.ReduceCalls > MaxReduceCalls:
		return &Error{Code: CodeAnomalyReduceCalls}
	case run.ConsecutiveRefusals >= MaxConsecutiveRefusals:
		return &Error{Code: CodeAnomalyRefusals}
	}
	return nil
}

// untrustedForbidden are the scopes an automation declared to read untrusted
// text may never hold (§11.4 rule 3), each with its own variants
// ("schedules:write:own"); every asset scope is forbidden too.
var untrustedForbidden = []string{"content:write", "site:publish", "schedules:write", "releases:publish"}

// ForbiddenForUntrusted reports whether an automation that reads untrusted
// text may not hold scope: content:write, site:publish, schedules:write,
// releases:publish or any of their ":own" variants, or any asset:* scope
// (§11.4 rule 3). Its useful scopes are reads plus comments:moderate.
func ForbiddenForUntrusted(scope string) bool {
	if strings.HasPrefix(scope, "asset:") {
		return true
	}
	for _, f := range untrustedForbidden {
		if scope == f || strings.HasPrefix(scope, f+":") {
			return true
		}
	}
	return false
}

// CheckUntrustedScopes refuses, when the automation is created or edited, a
// key for an automation with readsUntrustedText that would hold a forbidden
// scope: an *Error with CodeUntrustedScope naming the first one in Field.
func CheckUntrustedScopes(readsUntrustedText bool, scopes []string) error {
	if !readsUntrustedText {
		return nil
	}
	for _, s := range scopes {
		if ForbiddenForUntrusted(s) {
			return &Error{Code: CodeUntrustedScope, Field: s}
		}
	}
	return nil
}

// UntrustedEffectiveScopes strips the forbidden scopes on every call of an
// automation with readsUntrustedText (§11.4 rule 3), so a scope that slipped
// in later (a widened key) still never applies. The input is not modified.
func UntrustedEffectiveScopes(readsUntrustedText bool, scopes []string) []string {
	out := make([]string, 0, len(scopes))
	for _, s := range scopes {
		if !readsUntrustedText || !ForbiddenForUntrusted(s) {
			out = append(out, s)
		}
	}
	return out
}
