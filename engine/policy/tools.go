package policy

import "slices"

// ScopeNeed is one scope a tool needs.
type ScopeNeed struct {
	Scope Scope
	// Own: the scope's own variant is enough; the call is then limited to
	// the caller's own nodes (the RFC's "(own)").
	Own bool
}

// Variant is one per-argument class of a tool (RFC-0007 per-argument
// classes): most tools have one; cancel_schedule and set_embargo have two.
type Variant struct {
	Class Class
	// When says, in the RFC's words, which calls take this variant.
	When string
	// Modes is the tool's row for this variant: plan, manual, edits, auto,
	// bypass.
	Modes map[Mode]Verdict
	// Tainted reports whether a tainted run may still call it (§11.4 rule
	// 1: read-class tools, label_comments and reduce-class tools).
	Tainted bool
	// BindsState: the approval binds to the release's rl1: (§10.4
	// bindState).
	BindsState bool
}

// ToolSpec is one MCP tool (§12, and the tools §11.4's rules name).
type ToolSpec struct {
	Name string
	// Section is where the row comes from: "§12", "§11.4" for the tools
	// from earlier RFCs that the taint rules name (their scopes are
	// Studio's reading, see tools below), "issue 13" for the content
	// tools an agent proposes from (list_content, get_content), or
	// "issue 38" for describe_site.
	Section string
	// Scopes are all needed, unless the caller is the automation's key and
	// AutomationKey is set.
	Scopes []ScopeNeed
	// AutoPublishScopes are needed besides Scopes for an auto-mode publish
	// without a person (schedule_release: releases:publish (own)); without
	// them an auto-mode call waits.
	AutoPublishScopes []ScopeNeed
	// AutomationKey: the automation's own key may call it (begin_run,
	// end_run, pause_automation).
	AutomationKey bool
	// OwnAutomationsOnly: through Scopes, only on automations the caller
	// owns (pause_automation).
	OwnAutomationsOnly bool
	// Variants are the tool's classes; the first is the default.
	Variants []Variant
	// AutoReevaluatedAs names the tool whose rules re-decide the release in
	// auto mode (reschedule: "in auto it is re-evaluated as
	// schedule_release").
	AutoReevaluatedAs string
	// VoidsApproval: an agent's call always voids the release's approval
	// (reschedule; D4).
	VoidsApproval bool
	// Taints: calling it inside a run taints the run (§11.4 rule 1).
	Taints bool
	// InRuns: the tool exists inside runs (§11.4 rule 2: fetch_asset_url
	// does not).
	InRuns bool
	// OutsideRun: an automation key may call it outside an open run window
	// (§11.2: begin_run and get_mode only; every other tool answers 401
	// outside_run).
	OutsideRun bool
	// NotServed: Studio's /mcp does not offer it. §11.4 names it for its
	// taint rules, but Studio has no comments or analytics of its own to
	// read; a run's envelope never lists it.
	NotServed bool
}

// Variant returns the variant of class c; an empty c is the default (the
// first).
func (t ToolSpec) Variant(c Class) (Variant, bool) {
	if len(t.Variants) == 0 {
		return Variant{}, false
	}
	if c == "" {
		return t.Variants[0], true
	}
	for _, v := range t.Variants {
		if v.Class == c {
			return v, true
		}
	}
	return Variant{}, false
}

// Classes returns the classes of the tool's variants.
func (t ToolSpec) Classes() []Class {
	out := make([]Class, len(t.Variants))
	for i, v := range t.Variants {
		out[i] = v.Class
	}
	return out
}

// Verdict decides a call of the tool: its variant of class c (empty: the
// default variant) in mode, made inside a run or not, by a tainted run or
// not. In order: an unknown variant or mode is Refused; a tool unavailable
// in runs is UnavailableInRun there; bypass inside a run is NotApplicable
// (§10.7); a tainted run calling a tool it may not is Tainted; otherwise the
// table's cell, which for LowRiskInWindow the caller resolves with the
// low-risk check, AutoPublishScopes and AutoAllowed. Tainted implies a run.
func (t ToolSpec) Verdict(mode Mode, c Class, inRun, tainted bool) Verdict {
	v, ok := t.Variant(c)
	if !ok || mode.rank() < 0 {
		return Refused
	}
	inRun = inRun || tainted
	if inRun && !t.InRuns {
		return UnavailableInRun
	}
	if inRun && mode == ModeBypass {
		return NotApplicable
	}
	if tainted && !v.Tainted {
		return Tainted
	}
	cell, ok := v.Modes[mode]
	if !ok {
		return Refused
	}
	return cell
}

// Authorize reports at which level a caller may use the tool: held are the
// caller's scopes (a key's, already narrowed and stripped), automationKey
// whether the caller is the key of the automation the call names. LevelOwn
// limits the call to the caller's own nodes (or own automations).
func (t ToolSpec) Authorize(held []Scope, automationKey bool) Level {
	if t.AutomationKey && automationKey {
		return LevelAny
	}
	if len(t.Scopes) == 0 {
		if t.AutomationKey {
			return LevelNone // the automation's key only
		}
		return LevelAny
	}
	l := needsLevel(held, t.Scopes)
	if t.OwnAutomationsOnly {
		l = l.Min(LevelOwn)
	}
	return l
}

// AuthorizeAutoPublish reports at which level a caller holds the tool's
// AutoPublishScopes as well as its Scopes (LevelNone when the tool has no
// auto publish).
func (t ToolSpec) AuthorizeAutoPublish(held []Scope) Level {
	if len(t.AutoPublishScopes) == 0 {
		return LevelNone
	}
	return needsLevel(held, t.Scopes).Min(needsLevel(held, t.AutoPublishScopes))
}

// MissingScope is the first scope the tool needs that held lacks (at the
// level it needs), for a refusal that says what to give the key; "" when
// nothing is missing or only the automation's own key may call it.
func (t ToolSpec) MissingScope(held []Scope) Scope {
	for _, n := range t.Scopes {
		if got := LevelIn(held, n.Scope); got == LevelNone || (got == LevelOwn && !n.Own) {
			return n.Scope
		}
	}
	return ""
}

func needsLevel(held []Scope, needs []ScopeNeed) Level {
	l := LevelAny
	for _, n := range needs {
		got := LevelIn(held, n.Scope)
		if got == LevelOwn && !n.Own {
			got = LevelNone
		}
		l = l.Min(got)
	}
	return l
}

// Tool returns the spec of the MCP tool called name.
func Tool(name string) (ToolSpec, bool) {
	for _, t := range tools {
		if t.Name == name {
			return clone(t), true
		}
	}
	return ToolSpec{}, false
}

// Tools returns every tool spec: the seventeen of §12 in the RFC's order,
// then the tools §11.4 names.
func Tools() []ToolSpec {
	out := make([]ToolSpec, len(tools))
	for i, t := range tools {
		out[i] = clone(t)
	}
	return out
}

// ScheduleTools returns the names of the seventeen §12 tools.
func ScheduleTools() []string {
	var out []string
	for _, t := range tools {
		if t.Section == "§12" {
			out = append(out, t.Name)
		}
	}
	return out
}

func clone(t ToolSpec) ToolSpec {
	t.Scopes = slices.Clone(t.Scopes)
	t.AutoPublishScopes = slices.Clone(t.AutoPublishScopes)
	vs := make([]Variant, len(t.Variants))
	for i, v := range t.Variants {
		m := make(map[Mode]Verdict, len(v.Modes))
		for k, x := range v.Modes {
			m[k] = x
		}
		v.Modes = m
		vs[i] = v
	}
	t.Variants = vs
	return t
}

// row builds a Modes map from the five cells plan, manual, edits, auto,
// bypass.
func row(plan, manual, edits, auto, bypass Verdict) map[Mode]Verdict {
	return map[Mode]Verdict{ModePlan: plan, ModeManual: manual, ModeEdits: edits, ModeAuto: auto, ModeBypass: bypass}
}

var (
	needRead     = []ScopeNeed{{SchedulesRead, false}}
	needWriteOwn = []ScopeNeed{{SchedulesWrite, true}}
	readVariant  = Variant{Class: ClassRead, Modes: row(Allowed, Allowed, Allowed, Allowed, Allowed), Tainted: true}
)

// scheduleReader is a schedules:read, read-class row of §12.
func scheduleReader(name string) ToolSpec {
	return ToolSpec{Name: name, Section: "§12", Scopes: needRead, Variants: []Variant{readVariant}, InRuns: true}
}

// tools is the §12 table as data, row by row, then the tools §11.4 names.
// Where a §12 cell differs from the §10.3 row of its class, the RFC says
// why in the row: cancel_schedule's publish variant waits in auto (canceling
// a removal keeps content up, never a low-risk release); schedule_unpublish
// waits in auto (removes content: never low-risk); begin_run and end_run
// have no bypass ("—": automation keys are remote keys).
//
// The §11.4 tools come from earlier RFCs; their scopes here are Studio's
// reading: comments tools need comments:read, label_comments
// comments:moderate (§11.4 rule 3: "comments:moderate (label, hide)"),
// analytics tools and broken_links (404 paths from analytics)
// analytics:read, fetch_asset_url asset:read. label_comments is advisory
// (§11.3: labels are proposals, free from manual up).
var tools = []ToolSpec{
	scheduleReader("list_schedule"),
	scheduleReader("get_schedule"),
	scheduleReader("list_releases"),
	scheduleReader("get_release"),
	scheduleReader("list_automations"),
	scheduleReader("list_runs"),
	scheduleReader("get_run"),
	{
		Name: "propose_release", Section: "§12", Scopes: needWriteOwn, InRuns: true,
		Variants: []Variant{{Class: ClassAdvisory, Modes: row(Refused, Allowed, Allowed, Allowed, Allowed)}},
	},
	{
		Name: "schedule_release", Section: "§12", Scopes: needWriteOwn, InRuns: true,
		AutoPublishScopes: []ScopeNeed{{ReleasesPublish, true}},
		Variants: []Variant{{Class: ClassPublish, BindsState: true,
			Modes: row(Refused, Waits, Waits, LowRiskInWindow, Allowed)}},
	},
	{
		Name: "reschedule", Section: "§12", Scopes: needWriteOwn, InRuns: true,
		VoidsApproval: true, AutoReevaluatedAs: "schedule_release",
		Variants: []Variant{{Class: ClassReduce, Tainted: true,
			Modes: row(Refused, Waits, Allowed, Allowed, Allowed)}},
	},
	{
		Name: "cancel_schedule", Section: "§12", Scopes: needWriteOwn, InRuns: true,
		Variants: []Variant{
			{Class: ClassReduce, When: "the release only publishes", Tainted: true,
				Modes: row(Refused, Waits, Allowed, Allowed, Allowed)},
			{Class: ClassPublish, When: "the release removes or expires content (canceling keeps content up)", BindsState: true,
				Modes: row(Refused, Waits, Waits, Waits, Allowed)},
		},
	},
	{
		Name: "set_embargo", Section: "§12", InRuns: true,
		Scopes: []ScopeNeed{{SchedulesWrite, true}, {ContentWrite, true}},
		Variants: []Variant{
			{Class: ClassReduce, When: "the node is not visible or the change only delays it", Tainted: true,
				Modes: row(Refused, Waits, Allowed, Allowed, Allowed)},
			{Class: ClassPublish, When: "otherwise",
				Modes: row(Refused, Waits, Waits, LowRiskInWindow, Allowed)},
		},
	},
	{
		Name: "lift_embargo", Section: "§12", Scopes: needWriteOwn, InRuns: true,
		Variants: []Variant{{Class: ClassPerson, BindsState: true,
			Modes: row(Refused, Waits, Waits, Waits, Waits)}},
	},
	{
		Name: "schedule_unpublish", Section: "§12", Scopes: needWriteOwn, InRuns: true,
		Variants: []Variant{{Class: ClassPublish, When: "removes content: never low-risk", BindsState: true,
			Modes: row(Refused, Waits, Waits, Waits, Allowed)}},
	},
	{
		Name: "begin_run", Section: "§12", AutomationKey: true, InRuns: true, OutsideRun: true,
		Variants: []Variant{{Class: ClassRead, When: "bookkeeping", Tainted: true,
			Modes: row(Allowed, Allowed, Allowed, Allowed, NotApplicable)}},
	},
	{
		Name: "end_run", Section: "§12", AutomationKey: true, InRuns: true,
		Variants: []Variant{{Class: ClassRead, When: "bookkeeping", Tainted: true,
			Modes: row(Allowed, Allowed, Allowed, Allowed, NotApplicable)}},
	},
	{
		Name: "pause_automation", Section: "§12", AutomationKey: true, InRuns: true,
		Scopes: []ScopeNeed{{SchedulesWrite, false}}, OwnAutomationsOnly: true,
		Variants: []Variant{{Class: ClassRead, When: "stops work only", Tainted: true,
			Modes: row(Allowed, Allowed, Allowed, Allowed, Allowed)}},
	},

	{Name: "get_mode", Section: "§11.4", InRuns: true, OutsideRun: true, Variants: []Variant{readVariant}},
	// The content tools an agent proposes from (issue 13): a site's pages
	// and entries, each with its working copy, live version and rev.
	{Name: "list_content", Section: "issue 13", Scopes: []ScopeNeed{{ContentRead, false}}, InRuns: true, Variants: []Variant{readVariant}},
	{Name: "get_content", Section: "issue 13", Scopes: []ScopeNeed{{ContentRead, false}}, InRuns: true, Variants: []Variant{readVariant}},
	// describe_site (issue 38): what a model needs to know of the site
	// before its first call (its zone, its language, the kinds of content
	// and their fields).
	{Name: "describe_site", Section: "issue 38", Scopes: []ScopeNeed{{ContentRead, false}}, InRuns: true, Variants: []Variant{readVariant}},
	// save_draft changes a working copy only, never the live site: advisory
	// (§10.3: "proposals people read before deciding" — nothing it writes
	// is public until a release, which follows the publish rules, takes
	// it), so not after taint (§11.4 rule 1: a content write is what
	// untrusted text must not steer).
	{
		Name: "save_draft", Section: "issue 13", Scopes: []ScopeNeed{{ContentWrite, true}}, InRuns: true,
		Variants: []Variant{{Class: ClassAdvisory, When: "changes a working copy only: never public",
			Modes: row(Refused, Allowed, Allowed, Allowed, Allowed)}},
	},
	{Name: "list_comments", Section: "§11.4", NotServed: true, Scopes: []ScopeNeed{{CommentsRead, false}}, InRuns: true, Taints: true, Variants: []Variant{readVariant}},
	{Name: "get_comment_thread", Section: "§11.4", NotServed: true, Scopes: []ScopeNeed{{CommentsRead, false}}, InRuns: true, Taints: true, Variants: []Variant{readVariant}},
	{Name: "broken_links", Section: "§11.4", Scopes: []ScopeNeed{{AnalyticsRead, false}}, InRuns: true, Taints: true, Variants: []Variant{readVariant}},
	{Name: "get_analytics", Section: "§11.4", NotServed: true, Scopes: []ScopeNeed{{AnalyticsRead, false}}, InRuns: true, Taints: true, Variants: []Variant{readVariant}},
	{Name: "top_content", Section: "§11.4", NotServed: true, Scopes: []ScopeNeed{{AnalyticsRead, false}}, InRuns: true, Taints: true, Variants: []Variant{readVariant}},
	{Name: "fetch_asset_url", Section: "§11.4", NotServed: true, Scopes: []ScopeNeed{{AssetRead, false}}, InRuns: false, Taints: true, Variants: []Variant{readVariant}},
	{
		Name: "label_comments", Section: "§11.4", NotServed: true, Scopes: []ScopeNeed{{CommentsModerate, false}}, InRuns: true,
		Variants: []Variant{{Class: ClassAdvisory, Tainted: true, Modes: row(Refused, Allowed, Allowed, Allowed, Allowed)}},
	},
}
