// Package gates holds the gate use cases people call (RFC §7.5, §7.6,
// §10.8 D8, §12 set_embargo, schedule_unpublish, lift_embargo; §13 POST
// …/gates and …/gates/:id/lift): setting and lifting a page's or an entry's
// embargo (availability.from) and expiry (availability.until), on its
// working copy or, on a live node, as a one-item release published at once
// or sent for approval.
//
// It is not engine/model/gate: gate is the pure rule of what the public site may
// show at an instant (no I/O, no clock), which this package reads to say
// where a node's gates stand; gates is the use cases that change them, with
// their checks, their writes and their audit rows.
package gates

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/gate"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// Store is what the gate use cases read and write themselves.
type Store interface {
	Site(ctx context.Context, id string) (engine.Site, error)
	// SaveNode writes a new version when the node is at expectedRev and
	// not held by a release.
	SaveNode(ctx context.Context, n content.Node, expectedRev int64, by release.Actor, now time.Time) error
	ScheduleSettings(ctx context.Context, siteID string) (releases.ScheduleSettings, error)
	Release(ctx context.Context, siteID, id string) (releases.ReleaseRow, error)
}

// Engine is what the gate use cases need from the engine: the clock, the
// pokes that wake the scheduler, a node as it is now (with its live body),
// and a new release inserted under the open-release caps.
type Engine interface {
	Now() time.Time
	Poke()
	NodeWithLive(ctx context.Context, siteID, id string) (releases.NodeDetail, *content.Body, error)
	InsertRelease(ctx context.Context, u engine.User, nr releases.NewRelease) error
	AnswerOf(ctx context.Context, u engine.User, r releases.ReleaseRow) (releases.Answer, error)
}

// Runner publishes a release now through Publish now's manual run: how an
// approved one-item gate release goes live at once.
type Runner interface {
	PublishNow(ctx context.Context, u engine.User, siteID, id string, rev int64) (releases.ReleaseRow, error)
}

// Gates is the gate use cases.
type Gates struct {
	e     Engine
	run   Runner
	store Store
}

// New wires the gate use cases.
func New(e Engine, run Runner, store Store) *Gates { return &Gates{e: e, run: run, store: store} }

// Writing gates (RFC §7.5, §7.6, §10.8 D8, §12 set_embargo,
// schedule_unpublish, lift_embargo; §13 POST …/gates and …/gates/:id/lift).
//
// A gate is a content field: availability.from (the embargo, "Visible
// from…") and availability.until (the expiry, "Hide after…") are part of a
// page's or an entry's version, hash, snapshot and diff, and go live when
// the node does. So:
//
//   - A node that is not live keeps its new gates on its working copy: they
//     ride along with whatever publishes it next (an ordinary publish, a
//     scheduled release), so an early ordinary publish cannot break an
//     embargo.
//   - On a live node a gate-only change (the working copy differs from the
//     live version in its gates only) is published on its own, as a
//     one-item release with the live version as its base: when kind
//     "on-approval". Someone who may approve releases (releases:publish)
//     approves it in the same act and it runs at once through the manual
//     run of Publish now, audited, with them as approver; anyone else's
//     waits for approval with one request bound to rl1: and "on-approval",
//     and approving it runs it at once (Releases.Approve's carry-out). In
//     Studio both hiding (an embargo: reduce) and expiring (publish:
//     removes content, a person decides, §12) take this one path, since a
//     person is acting either way; the reduce class only matters to agents'
//     modes.
//   - A node with other unpublished edits cannot carry a gate-only change:
//     other_edits, and the caller offers to include the edits (IncludeEdits,
//     after showing the whole diff; PlanGates gives it) or to wait.
//   - Moving a live embargo earlier, or removing it, is lifting it (D8): a
//     person who may publish releases, with a reason, audited
//     schedule.embargo.lift (LiftEmbargo). SetGates refuses it
//     (lift_required) on every path, including a save for the next publish.
//
// The honest-but-small mechanism behind "on-approval": the release is
// stored with when.kind "on-approval". Approved at creation, it also gets
// execute_at = now + 1 minute: the manual run normally publishes it at once,
// and if that run cannot start now (another release of the site is running
// this second) the ticker publishes it within the minute; the ticker never
// races the person's own run for it. Waiting for approval it has no time,
// so its request never expires on its own (D5 expires a request at the
// release's time); the approver's carry-out gives it the same minute and
// runs it. That minute is only the fallback's: when the release publishes,
// by the manual run or the ticker, its time becomes the instant it went
// live (the engine's runClaimed), so the Agenda shows a "Save and publish"
// before the Now line, where it happened, not a minute after it.

// When a gate change reaches the live site (§13 POST …/gates "apply").
const (
	// GateApplyNow publishes a live node's gate-only change now (or asks
	// for approval); on a node that is not live it is the same as
	// GateApplyWithNextPublish: there is nothing live to change.
	GateApplyNow = "now"
	// GateApplyWithNextPublish only saves the working copy.
	GateApplyWithNextPublish = "with-next-publish"
)

// What a gate change did (GateResult.Status).
const (
	// GateSaved: the working copy carries the gates; they go live with
	// whatever publishes the node next.
	GateSaved = "saved"
	// GateUnchanged: the gates asked for are the ones the working copy and
	// the live version already have; nothing was written.
	GateUnchanged = "unchanged"
	// GatePublished: a one-item release published the change now.
	GatePublished = "published"
	// GateAwaitingApproval: a one-item release waits for approval.
	GateAwaitingApproval = "approval-pending"
	// GateScheduled: approved, but the run could not start this second
	// (another release of the site is being published); the ticker
	// publishes it within a minute.
	GateScheduled = "scheduled"
)

// Refusal codes of gates, besides stale, scheduled_locked, not_found,
// forbidden, bad_node_kind, bad_date, bad_time, site_paused and the
// run's conflict, dependency_missing and publish_now_failed.
const (
	// CodeGateOrder: until must come after from (content.Validate).
	CodeGateOrder = "gate_order"
	// CodeGateInPast: a new gate time has already passed (set_embargo
	// refuses a from in the past; hiding at a time that passed is taking
	// the content down, which is Unpublish).
	CodeGateInPast = "gate_in_past"
	// CodeLiftRequired: making a live embargo end earlier, or removing it,
	// is lifting it (D8): LiftEmbargo, a person's act with a reason.
	CodeLiftRequired = "lift_required"
	// CodeOtherEdits: the live node's working copy has other changes that
	// are not live, so a gate change cannot go live on its own (§7.6).
	CodeOtherEdits = "other_edits"
	// CodeLiftNotEarlier: a lift that moves the embargo to a new time must
	// move it earlier than the embargo in force (a later time is an
	// ordinary gate change, set_embargo).
	CodeLiftNotEarlier = "lift_not_earlier"
	// CodeNotEmbargoed: there is no embargo in force on the live site to
	// lift. (A node that is not live is only edited: clearing its from
	// needs no lift.)
	CodeNotEmbargoed = "not_embargoed"
	// CodeBadApply: apply is neither "now" nor "with-next-publish".
	CodeBadApply = "bad_apply"
)

// GateTime is one gate of a change: left as it is (Change false), set to
// an instant (At, the API's RFC 3339), set to a date and a time in the
// site's zone (Date and Time, Studio's fields, resolved with localtime:
// gap → next valid time, overlap → first instant), or cleared (Change
// with nothing else).
type GateTime struct {
	Change     bool
	At         *time.Time
	Date, Time string
}

// KeepGate leaves a gate as it is.
func KeepGate() GateTime { return GateTime{} }

// ClearGate removes a gate.
func ClearGate() GateTime { return GateTime{Change: true} }

// GateAt sets a gate to an instant.
func GateAt(t time.Time) GateTime { return GateTime{Change: true, At: &t} }

// GateWall sets a gate to a date and a time in the site's zone; both empty
// clears it.
func GateWall(date, clock string) GateTime {
	return GateTime{Change: true, Date: strings.TrimSpace(date), Time: strings.TrimSpace(clock)}
}

// GateInput is a change of a page's or an entry's gates, on the node the
// person last saw at ExpectedRev.
type GateInput struct {
	SiteID      string
	NodeID      string
	ExpectedRev int64
	From        GateTime
	Until       GateTime
	Apply       string // GateApplyNow (the default) or GateApplyWithNextPublish
	// IncludeEdits publishes the working copy's other unpublished edits
	// with the gates (the person saw the whole diff, PlanGates).
	IncludeEdits bool
	// LiveOnly takes down what is live (§12 schedule_unpublish): a node
	// with nothing live is refused not_live, as there is nothing to take
	// down.
	LiveOnly bool
}

// LiftInput lifts the live embargo of a node the person last saw at
// ExpectedRev, with their reason (D8): now (From left as it is, or
// cleared: §12 lift_embargo's from absent or null), or by moving it
// earlier to a new time (From set: an instant, or a date and a time in the
// site's zone), which must still be ahead and before the embargo in force.
type LiftInput struct {
	SiteID       string
	NodeID       string
	ExpectedRev  int64
	Reason       string
	From         GateTime
	IncludeEdits bool
}

// GateResult is what a gate change did: the node as it is now and, on a
// live node, the one-item release that carries the change.
type GateResult struct {
	Node releases.NodeDetail
	// NodeAbilities are what the person who changed the gates may do to
	// the node now.
	NodeAbilities releases.NodeAbilities
	// Release is the one-item release that carries the change on a live
	// node, answered to the person (their abilities, its waiting request).
	Release *releases.Answer
	Status  string // GateSaved, GateUnchanged, GatePublished, GateAwaitingApproval, GateScheduled
}

// GatePlan is a gate change worked out and checked, before anything is
// written: the live version's body (nil when the node is not live), the
// working copy's, and the body the change would save and, on a live node,
// publish. The editor shows Base → Target as the whole diff before the
// person includes other edits.
type GatePlan struct {
	Node       releases.NodeDetail
	Live       *content.Body
	Target     content.Body
	Apply      string
	OtherEdits bool // the working copy differs from live beyond its gates
}

// Diff is the plan as a release item's diff: the live version against what
// would go live.
func (p GatePlan) Diff() releases.ItemDiff {
	d := releases.ItemDiff{Item: release.Item{Op: release.OpSet, NodeID: p.Node.ID, NodeKind: p.Node.Kind}}
	if p.Live != nil {
		b := *p.Live
		d.Base = &b
	}
	t := p.Target
	d.Target = &t
	return d
}

// Publishes reports whether carrying the plan out publishes (or asks to
// publish) a release, rather than only saving the working copy.
func (p GatePlan) Publishes() bool { return p.Live != nil && p.Apply == GateApplyNow }

// GateView is where a page's or an entry's gates stand, for the editor's
// Schedule card and the API: the working copy's and the live version's.
type GateView struct {
	Node releases.NodeDetail
	// From and Until are the working copy's gates; State is where they
	// stand now (gate.State, the status aside).
	From, Until *time.Time
	State       gate.GateState
	// Live is the live version's body, nil when the node is not live;
	// LiveState is where its gates stand now.
	Live      *content.Body
	LiveState gate.GateState
	// Pending: the working copy's gates are not the live ones (saved for the
	// next publish, or waiting in a release).
	Pending bool
	// OtherEdits: the working copy differs from live beyond its gates.
	OtherEdits bool
	// LiftableUntil is the from of the embargo in force on the live site,
	// which LiftEmbargo may lift; nil when there is none.
	LiftableUntil *time.Time
}

// NodeGates reads a node's gates (§7.3 "Studio reads gates as content").
func (e *Gates) NodeGates(ctx context.Context, u engine.User, siteID, id string) (GateView, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return GateView{}, err
	}
	g, err := e.gateNode(ctx, siteID, id)
	if err != nil {
		return GateView{}, err
	}
	return g.view(e.e.Now()), nil
}

// gateNode is a node's working copy with its live body, as the gate rules
// read it.
type gateNode struct {
	releases.NodeDetail
	live *content.Body
}

func (e *Gates) gateNode(ctx context.Context, siteID, id string) (gateNode, error) {
	d, live, err := e.e.NodeWithLive(ctx, siteID, id)
	if err != nil {
		return gateNode{}, err
	}
	return gateNode{NodeDetail: d, live: live}, nil
}

func (g gateNode) view(now time.Time) GateView {
	v := GateView{Node: g.NodeDetail, Live: g.live}
	v.From, v.Until = g.Body.Gates()
	v.State = gate.State(gate.Node{From: v.From, Until: v.Until}, now)
	if g.live != nil {
		from, until := g.live.Gates()
		v.LiveState = gate.State(gate.Node{From: from, Until: until}, now)
		v.Pending = !sameGates(g.Body.Availability, g.live.Availability)
		v.OtherEdits = otherEdits(g.Body, *g.live)
		v.LiftableUntil = liveEmbargo(g.live, now)
	}
	return v
}

// liveEmbargo is the from of the embargo in force in a live body at now, or
// nil.
func liveEmbargo(live *content.Body, now time.Time) *time.Time {
	if live == nil {
		return nil
	}
	if from, _ := live.Gates(); from != nil && from.After(now) {
		return from
	}
	return nil
}

// otherEdits reports whether working differs from live in anything but its
// gates.
func otherEdits(working, live content.Body) bool {
	working.Availability = live.Availability
	return content.Hash(content.Normalize(working)) != content.Hash(content.Normalize(live))
}

func sameGates(a, b *content.Availability) bool {
	a, b = content.NormalizeAvailability(a), content.NormalizeAvailability(b)
	if a == nil || b == nil {
		return a == b
	}
	return sameInstantPtr(a.From, b.From) && sameInstantPtr(a.Until, b.Until)
}

func sameInstantPtr(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// requireGates is set_embargo's and schedule_unpublish's scopes (§12):
// schedules:write (own) and content:write.
func requireGates(u engine.User, siteID string) error {
	if err := engine.Require(u, siteID, policy.SchedulesWrite); err != nil {
		return err
	}
	return engine.Require(u, siteID, policy.ContentWrite)
}

// PlanGates works a gate change out and checks it without writing
// anything. Refusals, in order: forbidden, bad_apply, not_found,
// bad_node_kind, scheduled_locked, stale, the fields (bad_date, bad_time,
// gate_in_past on a new time that is not after now, gate_order on until),
// lift_required (on from), and, for a live node with apply "now" and
// without IncludeEdits, other_edits.
func (e *Gates) PlanGates(ctx context.Context, u engine.User, in GateInput) (GatePlan, error) {
	if err := requireGates(u, in.SiteID); err != nil {
		return GatePlan{}, err
	}
	apply := in.Apply
	if apply == "" {
		apply = GateApplyNow
	}
	if apply != GateApplyNow && apply != GateApplyWithNextPublish {
		return GatePlan{}, engine.Refuse(CodeBadApply, "apply")
	}
	site, err := e.store.Site(ctx, in.SiteID)
	if err != nil {
		return GatePlan{}, err
	}
	g, err := e.gateNode(ctx, in.SiteID, in.NodeID)
	if err != nil {
		return GatePlan{}, err
	}
	if in.LiveOnly && g.live == nil {
		return GatePlan{}, engine.Refuse(releases.CodeNotLive, "nodeId")
	}
	if !releases.MayGate(u, g.NodeDetail) {
		return GatePlan{}, engine.Refuse(engine.CodeForbidden, "") // someone else's node, at the own level
	}
	if err := gateable(g, in.ExpectedRev); err != nil {
		return GatePlan{}, err
	}
	now := e.e.Now()
	curFrom, curUntil := g.Body.Gates()
	from, err := resolveGate(site, "from", curFrom, in.From, now)
	if err != nil {
		return GatePlan{}, err
	}
	until, err := resolveGate(site, "until", curUntil, in.Until, now)
	if err != nil {
		return GatePlan{}, err
	}
	target := g.Body
	target.Availability = &content.Availability{From: from, Until: until}
	target = content.Normalize(target)
	if err := validateBody(target); err != nil {
		return GatePlan{}, err
	}
	// D8: what the live site shows is held back until the embargo's from;
	// ending that earlier is a person's lift, on every path.
	if inForce := liveEmbargo(g.live, now); inForce != nil && (from == nil || from.Before(*inForce)) {
		return GatePlan{}, &engine.Error{Code: CodeLiftRequired, Field: "from", Args: map[string]any{"When": *inForce}}
	}
	p := GatePlan{Node: g.NodeDetail, Live: g.live, Target: target, Apply: apply}
	if g.live != nil {
		p.OtherEdits = otherEdits(g.Body, *g.live)
	}
	if p.Publishes() && p.OtherEdits && !in.IncludeEdits {
		return p, &engine.Error{Code: CodeOtherEdits, Args: map[string]any{"Title": g.Body.Title}}
	}
	return p, nil
}

// gateable refuses a node whose gates cannot be changed now: not a page or
// an entry, held by a release (§6.2), or moved since the person saw it.
func gateable(g gateNode, expectedRev int64) error {
	switch {
	case g.Kind != release.KindPage && g.Kind != release.KindContentEntry:
		return engine.Refuse(release.CodeBadNodeKind, "")
	case g.Held != nil:
		return releases.LockedBy(g.Held)
	case g.Rev != expectedRev:
		return engine.Refuse(engine.CodeStale, "")
	}
	return nil
}

// resolveGate is one gate's new value. A value that equals the current one
// (to the minute, for fields that show minutes) keeps it, even if it has
// passed; a new one must come after now.
func resolveGate(site engine.Site, field string, cur *time.Time, in GateTime, now time.Time) (*time.Time, error) {
	if !in.Change {
		return cur, nil
	}
	var at time.Time
	switch {
	case in.At != nil:
		at = in.At.UTC().Truncate(time.Millisecond)
	case in.Date != "" || in.Time != "":
		loc, err := localtime.LoadZone(site.TimeZone)
		if err != nil {
			return nil, engine.Refuse("bad_zone", "")
		}
		if cur != nil && cur.In(loc).Format("2006-01-02") == in.Date && cur.In(loc).Format("15:04") == in.Time {
			return cur, nil // the fields as they were shown
		}
		wall, err := localtime.ParseDateAndTime(in.Date, in.Time)
		if err != nil {
			return nil, engine.Refuse(engine.CodeOf(err), field)
		}
		at, _ = localtime.Resolve(wall, loc)
		at = at.UTC()
	default:
		return nil, nil // cleared
	}
	if cur != nil && at.Equal(*cur) {
		return cur, nil
	}
	if !at.After(now) {
		return nil, engine.Refuse(CodeGateInPast, field)
	}
	return &at, nil
}

// validateBody is content.Validate as an engine refusal.
func validateBody(b content.Body) error {
	if err := content.Validate(b); err != nil {
		var fe *content.FieldError
		if errors.As(err, &fe) {
			return &engine.Error{Code: strings.TrimPrefix(fe.Key, "error."), Field: fe.Field}
		}
		return err
	}
	return nil
}

// SetGates changes a page's or an entry's gates (§7.6, §12 set_embargo and
// schedule_unpublish, §13 POST …/gates): see PlanGates for its refusals,
// which change nothing. On a node that is not live, or with apply
// "with-next-publish", the working copy is saved (GateSaved). On a live
// node with apply "now" the change is published as a one-item release, at
// once by a person who may approve releases (GatePublished, or
// GateScheduled when the run must wait a moment; refused with site_paused
// while the kill switch is on, before anything is written), otherwise
// sent for approval (GateAwaitingApproval). Audited schedule.gates.set.
func (e *Gates) SetGates(ctx context.Context, u engine.User, in GateInput) (GateResult, error) {
	p, err := e.PlanGates(ctx, u, in)
	if err != nil {
		return GateResult{}, err
	}
	from, until := p.Target.Gates()
	oldFrom, oldUntil := p.Node.Body.Gates()
	details := map[string]any{"node": p.Node.ID, "from": instantOrEmpty(from), "until": instantOrEmpty(until),
		"previousFrom": instantOrEmpty(oldFrom), "previousUntil": instantOrEmpty(oldUntil), "apply": p.Apply}
	if in.IncludeEdits {
		details["includeEdits"] = true
	}
	return e.carryOut(ctx, u, p, "schedule.gates.set", details)
}

// LiftEmbargo lifts the embargo in force on a live page or entry (D8,
// §10.8, §12 lift_embargo, §13 POST …/gates/:nodeId/lift): a person's act,
// for someone who may approve releases (Editor and above), with a reason
// of 1 to 500 characters. Lifted now, its from is removed; moved earlier
// (in.From), its from becomes the new time, which must be after now
// (gate_in_past: a time that has passed is not "earlier", it is lifting
// now, which the person chooses as such) and before the embargo in force
// (lift_not_earlier). Its until stays. The gate-only change is published
// at once as a one-item release run by this person; the audit row
// schedule.embargo.lift carries the reason, the embargo's time and, when
// moved, the new one. Refusals, which change nothing: forbidden,
// reason_required, not_found, bad_node_kind, scheduled_locked, stale,
// not_embargoed (no embargo in force on the live site), the from field's
// (bad_date, bad_time, gate_in_past, lift_not_earlier), other_edits
// (without IncludeEdits), site_paused.
func (e *Gates) LiftEmbargo(ctx context.Context, u engine.User, in LiftInput) (GateResult, error) {
	if u.Agent == nil { // an agent's lift always waits for a person (§12): its request needs no releases:publish
		if err := engine.Require(u, in.SiteID, policy.ReleasesPublish); err != nil {
			return GateResult{}, err
		}
	}
	if err := requireGates(u, in.SiteID); err != nil {
		return GateResult{}, err
	}
	reason := strings.TrimSpace(in.Reason)
	if reason == "" || utf8.RuneCountInString(reason) > releases.MaxReasonLength {
		return GateResult{}, engine.Refuse(releases.CodeReason, "reason")
	}
	p, embargo, err := e.planLift(ctx, u, in)
	if err != nil {
		return GateResult{}, err
	}
	if p.OtherEdits && !in.IncludeEdits {
		return GateResult{}, &engine.Error{Code: CodeOtherEdits, Args: map[string]any{"Title": p.Node.Body.Title}}
	}
	details := map[string]any{"node": p.Node.ID, "reason": reason, "from": localtime.FormatInstant(*embargo)}
	if to, _ := p.Target.Gates(); to != nil {
		details["to"] = localtime.FormatInstant(*to)
	}
	if in.IncludeEdits {
		details["includeEdits"] = true
	}
	return e.carryOut(ctx, u, p, "schedule.embargo.lift", details)
}

// PlanLift is LiftEmbargo's plan, for the editor to show the whole diff when
// the node has other edits; it checks what LiftEmbargo checks but the
// reason and the other edits.
func (e *Gates) PlanLift(ctx context.Context, u engine.User, in LiftInput) (GatePlan, error) {
	if err := engine.Require(u, in.SiteID, policy.ReleasesPublish); err != nil {
		return GatePlan{}, err
	}
	p, _, err := e.planLift(ctx, u, in)
	return p, err
}

// planLift works a lift out: the node, the embargo in force and the
// working copy with its from removed or moved earlier.
func (e *Gates) planLift(ctx context.Context, u engine.User, in LiftInput) (GatePlan, *time.Time, error) {
	g, err := e.gateNode(ctx, in.SiteID, in.NodeID)
	if err != nil {
		return GatePlan{}, nil, err
	}
	if !releases.MayLift(u, g.NodeDetail) && (u.Agent == nil || !releases.MayGate(u, g.NodeDetail)) {
		return GatePlan{}, nil, engine.Refuse(engine.CodeForbidden, "")
	}
	if err := gateable(g, in.ExpectedRev); err != nil {
		return GatePlan{}, nil, err
	}
	now := e.e.Now()
	embargo := liveEmbargo(g.live, now)
	if embargo == nil {
		return GatePlan{}, nil, engine.Refuse(CodeNotEmbargoed, "")
	}
	var from *time.Time // lifted now
	if in.From.Change && (in.From.At != nil || in.From.Date != "" || in.From.Time != "") {
		site, err := e.store.Site(ctx, in.SiteID)
		if err != nil {
			return GatePlan{}, nil, err
		}
		// Resolved as a new gate (nothing is "as shown": the time in force
		// itself is not earlier).
		if from, err = resolveGate(site, "from", nil, in.From, now); err != nil {
			return GatePlan{}, nil, err
		}
		if !from.Before(*embargo) {
			return GatePlan{}, nil, &engine.Error{Code: CodeLiftNotEarlier, Field: "from", Args: map[string]any{"When": *embargo}}
		}
	}
	target := g.Body
	_, until := target.Gates()
	target.Availability = &content.Availability{From: from, Until: until}
	target = content.Normalize(target)
	return GatePlan{Node: g.NodeDetail, Live: g.live, Target: target, Apply: GateApplyNow,
		OtherEdits: otherEdits(g.Body, *g.live)}, embargo, nil
}

// agentAct is the §12 act an agent's gate change is, with its class:
// lifting an embargo (a person's act); a new or changed expiry
// (schedule_unpublish: it removes content, or keeps it up longer); an
// embargo, which can only hide or delay content (reduce) unless the
// change publishes other edits with it.
func agentAct(p GatePlan, action string) (string, policy.Class) {
	if action == "schedule.embargo.lift" {
		return "lift_embargo", policy.ClassPerson
	}
	_, until := p.Target.Gates()
	_, was := p.Node.Body.Gates()
	if !sameInstantPtr(until, was) {
		return "schedule_unpublish", policy.ClassPublish
	}
	if p.OtherEdits {
		return "set_embargo", policy.ClassPublish
	}
	return "set_embargo", policy.ClassReduce
}

// carryOut writes a checked plan: the working copy alone, or a one-item
// release that publishes it.
func (e *Gates) carryOut(ctx context.Context, u engine.User, p GatePlan, action string, details map[string]any) (GateResult, error) {
	now := e.e.Now()
	n := p.Node.Node
	changed := content.Hash(p.Target) != n.Hash
	tool, class := agentAct(p, action)
	if !p.Publishes() || content.Hash(p.Target) == p.Node.Live.Hash {
		// Only the working copy changes: not live, saved for the next
		// publish, or back to exactly what is live.
		if !changed {
			return GateResult{Node: p.Node, NodeAbilities: releases.NodeAbilitiesOf(u, p.Node), Status: GateUnchanged}, nil
		}
		if u.Agent != nil {
			if _, err := releases.AgentGateApproval(u, tool, class, false, now); err != nil {
				return GateResult{}, err
			}
		}
		n.Body, n.Rev, n.Hash, n.UpdatedAt = p.Target, n.Rev+1, content.Hash(p.Target), now
		if err := e.store.SaveNode(ctx, n, p.Node.Rev, u.Actor(), now); err != nil {
			if errors.Is(err, engine.ErrConflict) {
				return GateResult{}, engine.Refuse(engine.CodeStale, "")
			}
			return GateResult{}, err
		}
		d, _, err := e.e.NodeWithLive(ctx, n.SiteID, n.ID)
		if err != nil {
			return GateResult{}, err
		}
		return GateResult{Node: d, NodeAbilities: releases.NodeAbilitiesOf(u, d), Status: GateSaved}, nil
	}

	site, err := e.store.Site(ctx, n.SiteID)
	if err != nil {
		return GateResult{}, err
	}
	var approval *release.Approval
	switch {
	case u.Agent != nil: // never a person's approval (§12): a request, or a reduce the mode allows
		if approval, err = releases.AgentGateApproval(u, tool, class, true, now); err != nil {
			return GateResult{}, err
		}
	case releases.NodeAbilitiesOf(u, p.Node).Approves: // releases:publish at the level the node reaches
		approval = &release.Approval{Kind: release.ApprovalPerson, By: u.Actor(), At: now}
	}
	approves := approval != nil
	if approves {
		set, err := e.store.ScheduleSettings(ctx, site.ID)
		if err != nil {
			return GateResult{}, err
		}
		if set.Paused {
			return GateResult{}, engine.Refuse(engine.CodeSitePaused, "") // nothing written: the run could not start
		}
	}

	// The version that goes live: the working copy with its new gates,
	// saved in the same transaction as the release (as ScheduleNode does);
	// if the release ends without publishing, the working copy before the
	// change comes back (RestoreRev).
	target := n
	var newVersions []content.Node
	item := release.Item{Op: release.OpSet, NodeID: n.ID, NodeKind: n.Kind,
		Base: &release.Version{Rev: p.Node.Live.Rev, Hash: p.Node.Live.Hash}, Deps: p.Target.Refs}
	if changed {
		target.Body, target.Rev, target.Hash, target.UpdatedAt = p.Target, n.Rev+1, content.Hash(p.Target), now
		newVersions = append(newVersions, target)
		item.RestoreRev = n.Rev
	}
	item.Target = &release.Version{Rev: target.Rev, Hash: target.Hash}
	items := []release.Item{item}
	if err := release.ValidateItems(items); err != nil {
		return GateResult{}, engine.Refuse(engine.CodeOf(err), "")
	}
	r := release.Release{
		SchemaVersion: 1, ID: ids.New("rel"), SiteID: site.ID, Title: n.Body.Title, Items: items,
		When:  &release.When{Kind: "on-approval", TimeZone: site.TimeZone},
		State: release.StateAwaitingApproval, Hash: release.Hash(site.ID, items),
		CreatedBy: u.Actor(), CreatedAt: now, UpdatedAt: now, Rev: 1,
	}
	var executeAt *time.Time
	if approves {
		at := now.Add(release.MinLead) // the ticker's fallback if the run cannot start now
		if u.Agent != nil {
			at = now // the ticker runs it (Publish now is a person's act)
		}
		executeAt = &at
		r.When.At = at
		r.State = release.StateScheduled
		approval.ExecuteAt = &at
		r.Approval = approval
	}
	details["hash"], details["state"] = r.Hash, r.State
	nr := releases.NewRelease{Release: r, ExecuteAt: executeAt, PinnedRevs: map[string]int64{n.ID: n.Rev}, NewVersions: newVersions,
		Audit: engine.AuditEntry{Action: action, Actor: u.Actor(), SiteID: site.ID, ReleaseID: r.ID, At: now, Details: details}}
	if !approves {
		nr.Request = releases.NewRequest(u, r, nil, now) // bound to rl1: and "on-approval" (§10.4)
	}
	if err := e.e.InsertRelease(ctx, u, nr); err != nil {
		return GateResult{}, err
	}
	if !approves {
		return e.gateResult(ctx, u, site.ID, n.ID, r.ID, GateAwaitingApproval)
	}
	if u.Agent != nil {
		e.e.Poke()
		return e.gateResult(ctx, u, site.ID, n.ID, r.ID, GateScheduled)
	}
	return e.runGateRelease(ctx, u, site.ID, n.ID, r.ID, r.Rev)
}

// runGateRelease publishes an approved one-item gate release now, through
// Publish now's manual run, as u. A run that cannot start this second
// (another release of the site is running, or the site moved under it)
// leaves it scheduled a minute ahead, where the ticker publishes it; a run
// that ends without publishing (a conflict: the live version changed
// between the reads) returns its refusal.
func (e *Gates) runGateRelease(ctx context.Context, u engine.User, siteID, nodeID, releaseID string, rev int64) (GateResult, error) {
	_, err := e.run.PublishNow(ctx, u, siteID, releaseID, rev)
	if err != nil {
		re, ok := engine.AsError(err)
		if !ok {
			return GateResult{}, err
		}
		switch re.Code {
		case engine.CodeSiteBusy, engine.CodeStale, engine.CodeRunning, engine.CodeBadState:
			e.e.Poke()
		default:
			return GateResult{}, err
		}
	}
	res, err := e.gateResult(ctx, u, siteID, nodeID, releaseID, GateScheduled)
	if err == nil && res.Release != nil && res.Release.State == release.StatePublished {
		res.Status = GatePublished
	}
	return res, err
}

// gateResult is the node and its release as they are now, with status.
func (e *Gates) gateResult(ctx context.Context, u engine.User, siteID, nodeID, releaseID, status string) (GateResult, error) {
	r, err := e.store.Release(ctx, siteID, releaseID)
	if err != nil {
		return GateResult{}, err
	}
	a, err := e.e.AnswerOf(ctx, u, r)
	if err != nil {
		return GateResult{}, err
	}
	d, _, err := e.e.NodeWithLive(ctx, siteID, nodeID)
	if err != nil {
		return GateResult{}, err
	}
	return GateResult{Node: d, NodeAbilities: releases.NodeAbilitiesOf(u, d), Release: &a, Status: status}, nil
}

func instantOrEmpty(t *time.Time) string {
	if t == nil {
		return ""
	}
	return localtime.FormatInstant(*t)
}
