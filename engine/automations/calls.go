package automations

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/model/automation"
	"studio/engine/policy"
)

// The per-call run rules of an agent key (§11.2, §11.4, §11.5), in one
// place: every MCP tool call passes StartCall before its use case and
// Call.End after it. StartCall finds the key's open run, gives the call the
// run's id and mode and the run's taint, asks engine.AgentMayCall, and
// refuses a call the run's budget has no room for; End counts the call in
// the run's ledger (RecordCall). For a key of no automation both are the
// gate alone.
//
// Two steps rather than one function around the use case: the surface
// (MCP) owns the body — parsing, the site, the answer's shape, the audit
// row — and the engine owns only what runs before and after it.

// toolPause is pause_automation, which no budget stops.
const toolPause = "pause_automation"

// CallRequest is one tool call as StartCall decides it.
type CallRequest struct {
	Tool string
	// Class is the variant the call takes (§10.3); "" for a read tool's
	// one variant.
	Class policy.Class
	// AutomationKey: the call names the key's own automation (begin_run,
	// pause_automation of its automation, end_run).
	AutomationKey bool
	// MayWrite and MayRequestApproval: the call may write a snapshot or
	// file an approval request; the run's budget must have room for one
	// before the call starts (§11.5).
	MayWrite, MayRequestApproval bool
	// SiteID is the site the call names ("" for a tool without one): a
	// key's own site only (engine.AgentOnSite), checked before the mode,
	// the scopes and the taint, so that any other site answers forbidden
	// whatever else the call is.
	SiteID string
}

// CallResult is what a call did, for the run's ledger.
type CallResult struct {
	// Refused: the call answered a refusal (any error).
	Refused bool
	// NotFound: the refusal was not_found (see automation.Call.NotFound).
	NotFound bool
	// Write: the call wrote a snapshot; ApprovalRequest: it filed one.
	Write, ApprovalRequest bool
}

// RunStatus is an open run as get_mode answers it (§12), as the call
// found it: BudgetLeft does not count the call itself yet.
type RunStatus struct {
	RunID      string
	EndsAt     time.Time
	BudgetLeft automation.Left
	Tainted    bool
}

// Call is a started tool call. StartCall returns one even with its
// refusal, so that the surface audits the refused call as the run's.
type Call struct {
	// User is the caller for the use case and the audit row: inside a run,
	// User.Agent.RunID is the run's and User.Agent.Mode the run's mode.
	User    engine.User
	Verdict policy.Verdict
	Level   policy.Level
	// Run is the open run the call is made in (nil outside one).
	Run *RunStatus
	// SitePaused: the key's site has its kill switch on; only the calls
	// sitePausedRefusal lets through get this far.
	SitePaused bool

	e     *Automations
	runID string
	req   CallRequest
	ended bool
}

// StartCall starts one tool call of u (an agent key): a call naming a
// site other than the key's own is refused forbidden (req.SiteID); for an automation's
// key it finds the open run (outside one, every tool but begin_run,
// get_mode and pause_automation is refused outside_run), works in the
// envelope's mode inside it (policy.RunMode of the key's mode and the
// modeCap; outside it the key's mode capped by the modeCap), and passes the
// run's taint to the gate. A refusal inside a run is counted there at
// once (End does nothing more); a call the budget has no room for ends the
// run budget-exceeded and pauses the automation. While the key's site is
// paused, every tool but get_mode and pause_automation is refused
// site_paused before anything else (sitePausedRefusal).
func (e *Automations) StartCall(ctx context.Context, u engine.User, req CallRequest) (*Call, error) {
	c := &Call{User: u, e: e, req: req}
	if u.Agent == nil {
		_, _, err := engine.AgentMayCall(u, req.Tool, req.Class, false, req.AutomationKey)
		c.ended = true
		return c, err
	}
	paused, err := e.sitePausedRefusal(ctx, u, req.Tool)
	c.SitePaused = paused
	if err != nil {
		c.ended = true
		return c, err
	}
	agent := *u.Agent
	c.User.Agent = &agent
	// A person's key: the taint of its MCP session, which the surface
	// keeps (TaintsSession); an automation's key: its run's, below.
	tainted := agent.AutomationID == "" && agent.Tainted
	agent.Tainted = tainted
	var run Run
	var budget func() error       // the run's budget check, once the gate let the call through
	var automationRow *Automation // an automation key's automation, for when it is outside its run
	if agent.AutomationID != "" {
		a, r, open, err := e.openRun(ctx, u)
		if err != nil {
			c.ended = true
			return c, err
		}
		if a.ID != "" {
			automationRow = &a
		}
		if a.Task != nil {
			if a.State != AutomationBroken && roleChanged(u, *a.Task) {
				c.ended = true
				return c, e.breakForRole(ctx, u, a)
			}
			agent.Mode = policy.RunMode(agent.Mode, a.Task.ModeCap)
			if a.Task.ReadsUntrustedText {
				// §11.4 rule 3, on every call whatever the key holds: a
				// reader of untrusted text never writes content or
				// schedules.
				c.User.Scopes = policy.StripUntrusted(engine.HeldScopes(c.User))
			}
		}
		if open {
			run = r
			agent.RunID, c.runID = r.ID, r.ID
			if r.Mode != "" {
				agent.Mode = policy.Mode(r.Mode)
			}
			tainted = r.Ledger.Tainted()
			agent.Tainted = tainted // the write use cases ask the gate again with it
			c.Run = &RunStatus{RunID: r.ID, EndsAt: *r.EndsAt,
				BudgetLeft: automation.BudgetLeft(r.Ledger.Usage, a.Task.Budget, e.now(), *r.EndsAt), Tainted: tainted}
			// The budget must have room for this call before it runs; a
			// pause stops work, which never waits on a budget (§11.6). A
			// call its mode or its scopes refuse spends nothing: the gate
			// answers it first.
			budget = func() error {
				probe := automation.Call{Tool: req.Tool, Class: string(req.Class), Write: req.MayWrite, ApprovalRequest: req.MayRequestApproval}
				berr := fromModel(automation.CheckBudget(r.Ledger.Usage, a.Task.Budget, probe))
				if berr == nil && req.MayWrite {
					berr = e.checkDailyWriteCap(ctx, a.SiteID)
				}
				if berr == nil || req.Tool == toolPause {
					return nil
				}
				c.ended = true
				if _, refused := engine.AsError(berr); !refused {
					return berr // the count could not be read
				}
				return e.endBySystem(ctx, a, r, automation.RunBudgetExceeded, false, r.Ledger, berr, e.now())
			}
		}
	}
	v, l, err := engine.AgentMayCall(c.User, req.Tool, req.Class, tainted, req.AutomationKey)
	c.Verdict, c.Level = v, l
	if ee, ok := engine.AsError(err); ok && ee.Code == CodeOutsideRun && automationRow != nil {
		err = outsideRun(*automationRow, e.now())
	}
	if req.SiteID != "" {
		if serr := engine.AgentOnSite(c.User, req.SiteID); serr != nil {
			err = serr
		}
	}
	if err != nil {
		if run.ID != "" {
			if rerr := c.End(ctx, CallResult{Refused: true}); rerr != nil {
				return c, rerr
			}
		}
		c.ended = true
		return c, err
	}
	if budget != nil {
		return c, budget()
	}
	return c, nil
}

// Tools an agent key may still call while its site's kill switch is on:
// get_mode says the site is paused (Call.SitePaused), and pause_automation
// only stops (§11.6: stopping never waits).
var toolsWhilePaused = []string{"get_mode", toolPause}

// sitePausedRefusal refuses every call of an agent key, a person's or an
// automation's, while the kill switch of the key's site is on (§11.6 item
// 2), but those of toolsWhilePaused: nothing an agent does waits for the
// switch to be noticed by a tick. The key's site is its automation's for an
// automation's key, and the site the key was minted on (u.SiteID: a key
// belongs to one site) for a person's. It reports whether the site is
// paused.
func (e *Automations) sitePausedRefusal(ctx context.Context, u engine.User, tool string) (bool, error) {
	siteID := u.SiteID
	if u.Agent.AutomationID != "" {
		a, err := e.store.TaskAutomation(ctx, u.Agent.AutomationID)
		if errors.Is(err, engine.ErrNotFound) {
			return false, nil // no automation, no run: the gate refuses what it must
		}
		if err != nil {
			return false, err
		}
		siteID = a.SiteID
	}
	if siteID == "" {
		return false, nil
	}
	set, err := e.store.ScheduleSettings(ctx, siteID)
	if err != nil || !set.Paused {
		return false, err
	}
	if slices.Contains(toolsWhilePaused, tool) {
		return true, nil
	}
	return true, refuse(engine.CodeSitePaused, "")
}

// CodeRoleChanged: the automation's owner no longer holds the role its
// mode cap or its key's scopes need (§11.8); it is broken now.
const CodeRoleChanged = "role_changed"

// roleChanged reports whether the owner's role, as the key u acts now,
// no longer fits the task (§11.8): the key's mode (the task's modeCap,
// capped by the role) fell below the cap, or a scope it was minted with
// narrowed.
func roleChanged(u engine.User, t Task) bool {
	held := slices.Sorted(slices.Values(policy.Narrow(t.Scopes, u.Role)))
	return policy.RunMode(u.Agent.Mode, t.ModeCap) != t.ModeCap || !slices.Equal(held, slices.Sorted(slices.Values(t.Scopes)))
}

// breakForRole makes the automation broken (role-changed) on its key's
// first call after the owner's demotion, its open run killed, and answers
// why. A person fixes it by editing the task or taking it over.
func (e *Automations) breakForRole(ctx context.Context, u engine.User, a Automation) error {
	from := a.AutomationState()
	next, err := automation.Change(from, automation.StateBroken, automation.ReasonRoleChanged, automation.ActorSystem)
	if err != nil {
		return fromModel(err)
	}
	a.setState(next)
	killRun := a.OpenRunID != ""
	a.DueAt, a.OpenRunID = nil, ""
	if _, err := e.write(ctx, u, a, killRun, "automation.broken", map[string]any{"from": string(from.State),
		"to": string(automation.StateBroken), "reason": string(automation.ReasonRoleChanged), "role": string(u.Role)}, e.now()); err != nil {
		return err
	}
	return refuse(CodeRoleChanged, "")
}

// checkDailyWriteCap refuses a write once the site's automations have
// made dailyWriteCap writes since midnight UTC (§11.5: audit rows that
// carry an automation).
func (e *Automations) checkDailyWriteCap(ctx context.Context, siteID string) error {
	set, err := e.store.ScheduleSettings(ctx, siteID)
	if err != nil {
		return err
	}
	from, to := automation.UTCDay(e.now())
	used, err := e.store.AutomationWrites(ctx, siteID, from, to)
	if err != nil {
		return err
	}
	return fromModel(automation.CheckDailyWriteCap(used, set.DailyWriteCap))
}

// End counts the call in its run's ledger (RecordCall): its tool call, its
// write and approval request, the run's taint when the tool taints. It
// returns an error only when the answer must change: a refused call that
// tripped the run's limits (the run ended, the automation paused) answers
// why, and a failure to count answers that. A call that went through keeps
// its answer even when counting it ended the run (what it did stays done;
// the next call is outside_run). Once the run has closed — end_run,
// pause_automation, its end time — there is nothing to count.
func (c *Call) End(ctx context.Context, res CallResult) error {
	if c == nil || c.ended || c.runID == "" {
		return nil
	}
	c.ended = true
	err := c.e.RecordCall(ctx, c.runID, automation.Call{Tool: c.req.Tool, Class: string(c.req.Class), Refused: res.Refused,
		NotFound: res.NotFound, Write: res.Write, ApprovalRequest: res.ApprovalRequest})
	if ee, ok := engine.AsError(err); ok {
		if ee.Code == CodeOutsideRun || !res.Refused {
			return nil
		}
	}
	return err
}

// TaintsSession reports whether the call, answered as res, taints the MCP
// session it was made in (§11.4 for a person's key, which has no run: the
// session stands for it): it went through, and its tool returns
// visitor-supplied text. An automation's key is tainted per run (End).
func (c *Call) TaintsSession(res CallResult) bool {
	return c != nil && c.User.Agent != nil && c.User.Agent.AutomationID == "" && !res.Refused && automation.Taints(c.req.Tool)
}

// openRun is u's automation and its open run at now, if any.
func (e *Automations) openRun(ctx context.Context, u engine.User) (Automation, Run, bool, error) {
	a, err := e.store.TaskAutomation(ctx, u.Agent.AutomationID)
	if errors.Is(err, engine.ErrNotFound) {
		return Automation{}, Run{}, false, nil
	}
	if err != nil || a.OpenRunID == "" {
		return a, Run{}, false, err
	}
	r, err := e.store.Run(ctx, a.SiteID, a.OpenRunID)
	if errors.Is(err, engine.ErrNotFound) {
		return a, Run{}, false, nil
	}
	if err != nil {
		return a, Run{}, false, err
	}
	if a.Task == nil || !r.Open() || r.KeyID != u.Agent.KeyID || r.EndsAt == nil || automation.CheckRunOpen(e.now(), *r.EndsAt) != nil {
		return a, Run{}, false, nil
	}
	return a, r, true, nil
}

// MaxPauseReasonLength is pause_automation's reason limit (§12).
const MaxPauseReasonLength = 500

// CodeBadPauseReason: pause_automation's reason is not plain text of at
// most MaxPauseReasonLength characters.
const CodeBadPauseReason = "bad_pause_reason"

// PauseByAgent pauses an automation for an agent (§11.6 item 1,
// pause_automation): the automation's own key in every mode, inside its run
// or not, or a key holding schedules:write on its owner's own automations.
// Stopping never waits: no rev is asked for, and a run in progress is
// killed. Resuming is a person's act (Resume). Audited as automation.pause
// with the agent's reason.
func (e *Automations) PauseByAgent(ctx context.Context, u engine.User, automationID, reason string) (Automation, error) {
	if u.Agent == nil {
		return Automation{}, refuse(engine.CodeNotAnAgent, "")
	}
	reason = strings.TrimSpace(reason)
	if utf8.RuneCountInString(reason) > MaxPauseReasonLength || !plainSummary(reason) {
		return Automation{}, refuse(CodeBadPauseReason, "reason")
	}
	a, err := e.store.TaskAutomation(ctx, automationID)
	if err != nil {
		return Automation{}, err
	}
	// The key's site only: another site's automation is not there for it.
	if err := engine.ActsOn(u, a.SiteID); err != nil {
		return Automation{}, err
	}
	own := u.Agent.AutomationID == a.ID && a.Task != nil && a.Task.KeyID == u.Agent.KeyID
	if !own {
		spec, _ := policy.Tool(toolPause)
		switch spec.Authorize(engine.HeldScopes(u), false) {
		case policy.LevelNone:
			return Automation{}, refuse(engine.CodeForbidden, "")
		case policy.LevelOwn:
			if a.Owner.ID != u.ID {
				return Automation{}, refuse(engine.CodeForbidden, "")
			}
		}
	}
	from := a.AutomationState()
	next, err := automation.Change(from, automation.StatePaused, automation.ReasonAgent, automation.ActorAgent)
	if err != nil {
		return Automation{}, fromModel(err)
	}
	a.setState(next)
	killRun := a.OpenRunID != ""
	a.DueAt, a.OpenRunID = nil, ""
	return e.write(ctx, u, a, killRun, "automation.pause", map[string]any{"from": string(from.State),
		"to": string(automation.StatePaused), "reason": string(automation.ReasonAgent), "agentReason": reason}, e.now())
}
