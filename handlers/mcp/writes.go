package mcp

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/handlers/wire"
)

// The write tools of §12 and save_draft: each parses its input, calls the
// use case the matching API route calls and answers that route's JSON.
// Whether the act goes out, waits for a person (a request filed with the
// run's id, answered at once as approval-pending) or is refused is the
// engine's (agentApproval, AgentGateApproval, agentMayCancel), never the
// tool's.

// ProposeReleaseInput is propose_release's input (§12).
type ProposeReleaseInput struct {
	SiteInput
	NodeIDs   []string   `json:"nodeIds" jsonschema:"the pages and entries whose working copies the release publishes, 1 to 100"`
	Title     string     `json:"title,omitempty" jsonschema:"the release's title (default: the first node's)"`
	At        *time.Time `json:"at,omitempty" jsonschema:"the time it proposes, RFC 3339; or localTime"`
	LocalTime string     `json:"localTime,omitempty" jsonschema:"the time it proposes as YYYY-MM-DDTHH:MM on the wall clock of timeZone (default: the site's)"`
	TimeZone  string     `json:"timeZone,omitempty" jsonschema:"an IANA zone for localTime"`
	Note      string     `json:"note,omitempty" jsonschema:"a note for the people who decide, plain text of at most 500 characters"`
}

func proposeSchema() *jsonschema.Schema {
	s := schemaOf[ProposeReleaseInput]("propose_release")
	lo, hi := 1, 100
	s.Properties["nodeIds"].MinItems, s.Properties["nodeIds"].MaxItems = &lo, &hi
	note := releases.MaxNoteLength
	s.Properties["note"].MaxLength = &note
	return s
}

// ScheduleReleaseInput is schedule_release's input (§12): a draft by id,
// or nodes to make one of.
type ScheduleReleaseInput struct {
	SiteInput
	ReleaseID   string   `json:"releaseId,omitempty" jsonschema:"the draft to schedule; or nodeIds"`
	NodeIDs     []string `json:"nodeIds,omitempty" jsonschema:"pages and entries to schedule as a new release; or releaseId"`
	When        any      `json:"when" jsonschema:"{at: RFC 3339} or {localTime: YYYY-MM-DDTHH:MM, timeZone?} or the string on-approval"`
	ExpectedRev int64    `json:"expectedRev,omitempty" jsonschema:"the draft's rev as last read (default: its rev now)"`
}

// RescheduleInput is reschedule's input (§12).
type RescheduleInput struct {
	SiteInput
	ReleaseID   string `json:"releaseId"`
	When        any    `json:"when" jsonschema:"{at: RFC 3339} or {localTime: YYYY-MM-DDTHH:MM, timeZone?}"`
	ExpectedRev int64  `json:"expectedRev" jsonschema:"the release's rev as last read"`
}

// CancelScheduleInput is cancel_schedule's input (§12).
type CancelScheduleInput struct {
	SiteInput
	ReleaseID   string `json:"releaseId"`
	ExpectedRev int64  `json:"expectedRev" jsonschema:"the release's rev as last read"`
}

// SetEmbargoInput is set_embargo's input (§12).
type SetEmbargoInput struct {
	SiteInput
	NodeID      string    `json:"nodeId"`
	From        time.Time `json:"from" jsonschema:"the embargo's end: visible from this instant, RFC 3339"`
	ExpectedRev int64     `json:"expectedRev" jsonschema:"the node's rev as last read"`
}

// LiftEmbargoInput is lift_embargo's input (§12).
type LiftEmbargoInput struct {
	SiteInput
	NodeID      string     `json:"nodeId"`
	From        *time.Time `json:"from,omitempty" jsonschema:"an earlier end for the embargo, RFC 3339; absent lifts it now"`
	Reason      string     `json:"reason" jsonschema:"why, for the person who decides: 1 to 500 characters"`
	ExpectedRev int64      `json:"expectedRev" jsonschema:"the node's rev as last read"`
}

func liftSchema() *jsonschema.Schema {
	s := schemaOf[LiftEmbargoInput]("lift_embargo")
	hi := releases.MaxReasonLength
	s.Properties["reason"].MaxLength = &hi
	return s
}

// ScheduleUnpublishInput is schedule_unpublish's input (§12).
type ScheduleUnpublishInput struct {
	SiteInput
	NodeID      string `json:"nodeId"`
	At          any    `json:"at" jsonschema:"when it leaves the site: an RFC 3339 instant or {localTime: YYYY-MM-DDTHH:MM} in the site's zone"`
	ExpectedRev int64  `json:"expectedRev" jsonschema:"the node's rev as last read"`
}

// SaveDraftInput is save_draft's input: a new page or entry (no nodeId),
// or fields of one's working copy; the fields left out keep their value.
type SaveDraftInput struct {
	SiteInput
	NodeID      string  `json:"nodeId,omitempty" jsonschema:"the page or entry to change; absent creates one"`
	Kind        string  `json:"kind,omitempty" jsonschema:"for a new one: entry (the default) or page"`
	ExpectedRev int64   `json:"expectedRev,omitempty" jsonschema:"the node's rev as last read (needed with nodeId)"`
	Title       *string `json:"title,omitempty"`
	Slug        *string `json:"slug,omitempty" jsonschema:"the address; for a new one, made from the title when absent"`
	Summary     *string `json:"summary,omitempty"`
	Body        *string `json:"body,omitempty" jsonschema:"the text, Markdown"`
	Lang        *string `json:"lang,omitempty" jsonschema:"en or tr"`
}

func saveDraftSchema() *jsonschema.Schema {
	s := schemaOf[SaveDraftInput]("save_draft")
	s.Properties["kind"].Enum = enum([]string{"entry", "page"})
	return s
}

// whenOf reads a when (or an at) as the API reads it; absent is nil.
func whenOf(v any) (*releases.WhenInput, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, engine.Refuse(wire.CodeBadWhen, "when")
	}
	in, rerr := wire.ParseWhen(raw)
	if rerr != nil {
		return nil, rerr
	}
	return in, nil
}

// expectedRev is the rev the agent gave, or the release's now when it gave
// none (schedule_release's expectedRev is optional in §12).
func (h *Handler) expectedRev(c *call, releaseID string, given int64) (int64, error) {
	if given > 0 {
		return given, nil
	}
	r, err := h.releases.Release(c.ctx, c.u, c.site.ID, releaseID)
	return r.Rev, err
}

// scheduled runs change, a use case that schedules or moves a release,
// and answers {release, status, approvalId?}; what the call did goes to
// the run's ledger.
func (h *Handler) scheduled(c *call, change func() (releases.ReleaseRow, error)) (any, error) {
	a, err := h.releases.Scheduling(c.ctx, c.u, func() (releases.ReleaseRow, error) {
		row, err := change()
		if err == nil {
			c.wrote = true
			c.requested = row.State == release.StateAwaitingApproval
		}
		return row, err
	})
	if err != nil {
		return nil, err
	}
	return wire.ScheduleOf(a), nil
}

// gateAnswer is a gate change's answer, and what it did for the ledger.
func (h *Handler) gateAnswer(c *call, res gates.GateResult) (any, error) {
	c.wrote = res.Status != gates.GateUnchanged
	c.requested = res.Status == gates.GateAwaitingApproval
	return wire.GateOf(res), nil
}

func (h *Handler) addWriteTools() {
	tool(h, "propose_release", "Propose a draft release of pages and entries (their working copies, pinned, with what they need), with a time if you have one. A person schedules or approves it in Studio; nothing is locked or published.",
		func(c *call, in ProposeReleaseInput) (any, error) {
			when, err := whenOf(proposedTime(in))
			if err != nil {
				return nil, err
			}
			v, err := h.releases.Viewing(c.ctx, c.u, func() (releases.ReleaseRow, error) {
				row, err := h.releases.CreateDraft(c.ctx, c.u, releases.DraftInput{SiteID: c.site.ID, Title: in.Title,
					NodeIDs: in.NodeIDs, When: when, Note: in.Note})
				c.wrote = err == nil
				return row, err
			})
			if err != nil {
				return nil, err
			}
			added := []string{}
			for _, a := range v.ClosureAdded {
				added = append(added, a.NodeID)
			}
			return map[string]any{"release": wire.ReleaseViewOf(v), "closureAdded": added}, nil
		}, proposeSchema())
	tool(h, "schedule_release", "Schedule a draft release (or nodes as a new one) at a time or on approval. It waits for a person's approval of the pinned versions (approval-pending, at once) unless this key's auto mode may publish a low-risk release within 24 hours; Studio publishes it at its time. Do not poll.",
		func(c *call, in ScheduleReleaseInput) (any, error) {
			when, err := whenOf(in.When)
			if err != nil {
				return nil, err
			}
			if when == nil {
				return nil, engine.Refuse(wire.CodeBadWhen, "when")
			}
			id, rev := in.ReleaseID, in.ExpectedRev
			switch {
			case (id == "") == (len(in.NodeIDs) == 0): // one of the two
				return nil, engine.Refuse(wire.CodeBadRequest, "releaseId")
			case id == "":
				// The draft takes the time, so that a time the engine refuses
				// refuses the draft too: nothing is left behind.
				row, err := h.releases.CreateDraft(c.ctx, c.u, releases.DraftInput{SiteID: c.site.ID, NodeIDs: in.NodeIDs, When: when,
					ForSchedule: true})
				if err != nil {
					return nil, err
				}
				c.wrote = true
				id, rev = row.ID, row.Rev
			default:
				if rev, err = h.expectedRev(c, id, rev); err != nil {
					return nil, err
				}
			}
			return h.scheduled(c, func() (releases.ReleaseRow, error) {
				return h.releases.ScheduleReleaseWhen(c.ctx, c.u, c.site.ID, id, rev, when)
			})
		})
	tool(h, "reschedule", "Move a scheduled or waiting release to a new time. An agent's move always needs approval again (approval-pending), except a low-risk release this key's auto mode may publish within 24 hours.",
		func(c *call, in RescheduleInput) (any, error) {
			when, err := whenOf(in.When)
			if err != nil {
				return nil, err
			}
			if when == nil {
				return nil, engine.Refuse(wire.CodeBadWhen, "when")
			}
			return h.scheduled(c, func() (releases.ReleaseRow, error) {
				return h.releases.Reschedule(c.ctx, c.u, c.site.ID, in.ReleaseID, in.ExpectedRev, *when)
			})
		})
	tool(h, "cancel_schedule", "Cancel a release before it runs; nothing is published. In manual mode, and for a release that removes content, ask a person.",
		func(c *call, in CancelScheduleInput) (any, error) {
			a, err := h.releases.AnsweringAfter(c.ctx, c.u, c.site.ID, in.ReleaseID, func() error {
				err := h.releases.Cancel(c.ctx, c.u, c.site.ID, in.ReleaseID, in.ExpectedRev)
				c.wrote = err == nil
				return err
			})
			if err != nil {
				return nil, err
			}
			return map[string]any{"release": wire.AnswerOf(a)}, nil
		})
	tool(h, "set_embargo", "Hide a page or entry until an instant (an embargo). On a live node it is a gate-only release: free from edits mode up, since it can only hide content; in manual mode it waits for a person.",
		func(c *call, in SetEmbargoInput) (any, error) {
			res, err := h.gates.SetGates(c.ctx, c.u, gates.GateInput{SiteID: c.site.ID, NodeID: in.NodeID,
				ExpectedRev: in.ExpectedRev, From: gates.GateAt(in.From), Apply: gates.GateApplyNow})
			if err != nil {
				return nil, err
			}
			return h.gateAnswer(c, res)
		})
	tool(h, "lift_embargo", "Ask a person to lift a live embargo early (now, or at an earlier instant), with your reason. Always approval-pending: only a person breaks an embargo.",
		func(c *call, in LiftEmbargoInput) (any, error) {
			from := gates.ClearGate()
			if in.From != nil {
				from = gates.GateAt(*in.From)
			}
			res, err := h.gates.LiftEmbargo(c.ctx, c.u, gates.LiftInput{SiteID: c.site.ID, NodeID: in.NodeID,
				ExpectedRev: in.ExpectedRev, Reason: in.Reason, From: from})
			if err != nil {
				return nil, err
			}
			return h.gateAnswer(c, res)
		}, liftSchema())
	tool(h, "schedule_unpublish", "Take a live page or entry off the site at a time (an expiry). It removes content, so it always waits for a person's approval (approval-pending).",
		func(c *call, in ScheduleUnpublishInput) (any, error) {
			until, err := h.gateTimeOf(c, in.At)
			if err != nil {
				return nil, err
			}
			res, err := h.gates.SetGates(c.ctx, c.u, gates.GateInput{SiteID: c.site.ID, NodeID: in.NodeID,
				ExpectedRev: in.ExpectedRev, Until: until, Apply: gates.GateApplyNow, LiveOnly: true})
			if err != nil {
				return nil, err
			}
			return h.gateAnswer(c, res)
		})
	tool(h, "save_draft", "Create a page or entry, or change the fields of its working copy. Never publishes: propose or schedule a release of it.",
		func(c *call, in SaveDraftInput) (any, error) {
			p := nodes.NodePatch{Title: in.Title, Slug: in.Slug, Summary: in.Summary, Text: in.Body, Lang: in.Lang}
			var a nodes.Answer
			var err error
			switch {
			case in.NodeID == "":
				kind := release.KindContentEntry
				if in.Kind == "page" {
					kind = release.KindPage
				}
				a, err = h.nodes.CreateNodeAnswer(c.ctx, c.u, c.site.ID, kind, p.Apply(content.Body{Status: content.StatusDraft}))
			case in.ExpectedRev < 1:
				return nil, engine.Refuse(wire.CodeBadRequest, "expectedRev")
			case p.Empty():
				return nil, engine.Refuse(wire.CodeNothingToChange, "")
			default:
				a, err = h.nodes.PatchNodeAnswer(c.ctx, c.u, c.site.ID, in.NodeID, "", in.ExpectedRev, p)
			}
			if err != nil {
				return nil, err
			}
			c.wrote = true
			return map[string]any{"node": wire.NodeAnswerOf(a)}, nil
		}, saveDraftSchema())
	tool(h, "broken_links", "The broken links and the most visited 404 paths the site's latest broken-links run found. The paths are visitor-supplied text: reading them taints the run (afterwards it may only read, label, hide and pause).",
		func(c *call, _ SiteInput) (any, error) {
			return h.brokenLinks(c)
		})
}

// proposedTime is propose_release's at | {localTime, timeZone?} as a when.
func proposedTime(in ProposeReleaseInput) any {
	switch {
	case in.At != nil && in.LocalTime != "":
		return map[string]any{"at": in.At, "localTime": in.LocalTime} // both: refused as bad_when
	case in.At != nil:
		return map[string]any{"at": in.At.Format(time.RFC3339)}
	case in.LocalTime != "":
		w := map[string]any{"localTime": in.LocalTime}
		if in.TimeZone != "" {
			w["timeZone"] = in.TimeZone
		}
		return w
	}
	return nil
}

// gateTimeOf reads schedule_unpublish's at: an instant, or a wall-clock
// time in the site's zone (another zone is not the site's gate).
func (h *Handler) gateTimeOf(c *call, v any) (gates.GateTime, error) {
	if s, ok := v.(string); ok {
		v = map[string]any{"at": s}
	}
	w, err := whenOf(v)
	switch {
	case err != nil:
		return gates.GateTime{}, err
	case w == nil || w.OnApproval || (w.TimeZone != "" && w.TimeZone != c.site.TimeZone):
		return gates.GateTime{}, engine.Refuse(wire.CodeBadWhen, "at")
	case w.At != nil:
		return gates.GateAt(*w.At), nil
	}
	date, clock, _ := strings.Cut(w.LocalTime, "T")
	return gates.GateWall(date, clock), nil
}

// brokenLinks is the findings of the site's latest broken-links run (new
// and still there; dismissed ones left out), quoted as untrusted text.
func (h *Handler) brokenLinks(c *call) (any, error) {
	list, err := h.aut.List(c.ctx, c.u, c.site.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"untrusted": true, "findings": []any{}}
	for _, a := range list {
		if a.Job != "builtin:"+string(automation.BuiltinBrokenLinks) || a.LastRun == nil {
			continue
		}
		f, err := h.jobs.RunFindings(c.ctx, a.ID, a.LastRun.ID, false)
		if err != nil {
			return nil, err
		}
		findings := []any{}
		for _, x := range append(f.New, f.Still...) {
			findings = append(findings, map[string]any{"code": x.Code, "nodeId": x.NodeID, "field": x.Field,
				"target": x.Target, "detail": x.Detail, "hits": x.Hits})
		}
		out["runId"], out["at"], out["findings"] = a.LastRun.ID, a.LastRun.OccurrenceAt, findings
		break
	}
	return out, nil
}
