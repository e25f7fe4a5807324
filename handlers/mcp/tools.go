package mcp

import (
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/release"
	"studio/handlers/api"
	"studio/locales"
)

// call is what a tool's body gets: the agent, its context (in the owner's
// language) and the site its siteId names ("" ID for a tool without one).
type call struct {
	ctx  context.Context
	u    engine.User
	site engine.Site
}

// sited is a tool input that names a site.
type sited interface{ site() string }

// SiteInput is the siteId every site tool takes.
type SiteInput struct {
	SiteID string `json:"siteId" jsonschema:"the site's id"`
}

func (s SiteInput) site() string { return s.SiteID }

// tool adds a tool whose input is In: the gate (engine.AgentMayCall), the
// site (refused as the API refuses it: not_found), the body, the audit row.
// schema, when given, is In's schema with what a Go type cannot say (the
// values a field accepts).
func tool[In sited](h *Handler, name, desc string, body func(c call, in In) (any, error), schema ...*jsonschema.Schema) {
	t := &sdk.Tool{Name: name, Description: desc}
	if len(schema) > 0 {
		t.InputSchema = schema[0]
	}
	sdk.AddTool(h.server, t,
		func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			u, ok := agentOf(req)
			if !ok { // ServeHTTP lets no request without an agent through
				return errorResult(CodeUnauthenticated, locales.T(locales.With(ctx, "en"), "mcp.unauthenticated"), nil), nil, nil
			}
			c := call{ctx: ctxOf(ctx, u), u: u}
			out, err := func() (any, error) {
				// Read tools: class "" (their one variant); no run of this
				// pass is tainted yet (the run ledger comes with begin_run).
				if _, _, err := engine.AgentMayCall(u, name, "", false, false); err != nil {
					return nil, err
				}
				if id := in.site(); id != "" {
					site, err := h.aut.AgentSite(ctx, u, id)
					if err != nil {
						return nil, err
					}
					c.site = site
				}
				return body(c, in)
			}()
			code := ""
			var res *sdk.CallToolResult
			if err != nil {
				res, code = h.refused(c.ctx, c.site, err)
				out = nil
			}
			if aerr := h.eng.AuditToolCall(ctx, u, engine.ToolCall{Tool: name, SiteID: c.site.ID, Code: code}); aerr != nil {
				// An unaudited call would escape §11.5's count: it fails.
				res, _ = h.refused(c.ctx, c.site, aerr)
				out = nil
			}
			return res, out, nil
		})
}

// ListScheduleInput is list_schedule's input (§12).
type ListScheduleInput struct {
	SiteInput
	From   time.Time `json:"from" jsonschema:"the first instant, RFC 3339"`
	To     time.Time `json:"to" jsonschema:"the instant after the last, RFC 3339; at most 62 days after from"`
	Types  []string  `json:"types,omitempty" jsonschema:"release, gate or automation: only these items"`
	States []string  `json:"states,omitempty" jsonschema:"grouped states: scheduled, waiting, running, attention, not_run, done, canceled (canceled, denied and expired items only when asked for)"`
	Origin string    `json:"origin,omitempty" jsonschema:"person or agent"`
	Cursor string    `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
}

// listScheduleSchema is ListScheduleInput's schema with the values states
// and origin accept, so that the SDK refuses any other (bad_request).
func listScheduleSchema() *jsonschema.Schema {
	s, err := jsonschema.For[ListScheduleInput](nil)
	if err != nil {
		panic("mcp: list_schedule schema: " + err.Error())
	}
	s.Properties["types"].Items.Enum = enum(calendar.ItemTypes)
	s.Properties["states"].Items.Enum = enum(calendar.StateFacets)
	s.Properties["origin"].Enum = enum([]string{"person", "agent"})
	return s
}

func enum(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// GetScheduleInput is get_schedule's input (§12).
type GetScheduleInput struct {
	SiteInput
	ID string `json:"id" jsonschema:"a calendar item's id: rel_…, gate:<nodeId>:from|until or occ:<automationId>:<at>"`
}

// ListReleasesInput is list_releases' input (§12).
type ListReleasesInput struct {
	SiteInput
	State  string `json:"state,omitempty" jsonschema:"only releases in this state"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many releases, 1 to 50 (default 50)"`
}

func listReleasesSchema() *jsonschema.Schema {
	s, err := jsonschema.For[ListReleasesInput](nil)
	if err != nil {
		panic("mcp: list_releases schema: " + err.Error())
	}
	states := make([]string, len(release.States))
	for i, st := range release.States {
		states[i] = string(st)
	}
	s.Properties["state"].Enum = enum(states)
	lo, hi := 1.0, float64(engine.ReleaseListMax)
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = &lo, &hi
	return s
}

// GetReleaseInput is get_release's input (§12).
type GetReleaseInput struct {
	SiteInput
	ReleaseID string `json:"releaseId"`
}

// ListRunsInput is list_runs' input (§12).
type ListRunsInput struct {
	SiteInput
	AutomationID string `json:"automationId,omitempty"`
	ReleaseID    string `json:"releaseId,omitempty"`
	State        string `json:"state,omitempty"`
	Cursor       string `json:"cursor,omitempty"`
}

// GetRunInput is get_run's input (§12).
type GetRunInput struct {
	SiteInput
	RunID string `json:"runId"`
}

// GetContentInput is get_content's input.
type GetContentInput struct {
	SiteInput
	NodeID string `json:"nodeId"`
}

// NoInput is the input of a tool without arguments (get_mode).
type NoInput struct{}

func (NoInput) site() string { return "" }

func (h *Handler) addTools() {
	tool(h, "list_schedule", "A site's calendar in [from, to): releases, gates and automation occurrences, in time order (at most 200 a page).",
		func(c call, in ListScheduleInput) (any, error) {
			q := calendar.CalendarQuery{SiteID: c.site.ID, From: in.From, To: in.To, Types: in.Types, States: in.States,
				Cursor: in.Cursor}
			if in.Origin != "" {
				q.Origins = []string{in.Origin}
			}
			return h.cal.Calendar(c.ctx, c.u, q)
		}, listScheduleSchema())
	tool(h, "get_schedule", "One calendar item by its id, as list_schedule lists it.",
		func(c call, in GetScheduleInput) (any, error) {
			return h.cal.Item(c.ctx, c.u, c.site.ID, in.ID)
		})
	tool(h, "list_releases", "A site's releases timed from now for 400 days and the open ones without a time, in time order, at most 50 a page.",
		func(c call, in ListReleasesInput) (any, error) {
			page, err := h.eng.ReleaseList(c.ctx, c.u, engine.ReleaseListQuery{SiteID: c.site.ID, State: release.State(in.State),
				Cursor: in.Cursor, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			out, err := api.ReleasesJSON(c.ctx, h.eng, c.u, c.site.ID, page.Releases)
			body := map[string]any{"releases": out}
			if page.NextCursor != "" {
				body["nextCursor"] = page.NextCursor
			}
			return body, err
		}, listReleasesSchema())
	tool(h, "get_release", "One release as a ReleaseView: its items with titles and paths, closureAdded, overlaps, lockedNodes and the waiting request.",
		func(c call, in GetReleaseInput) (any, error) {
			v, err := h.eng.ReleaseView(c.ctx, c.u, c.site.ID, in.ReleaseID)
			if err != nil {
				return nil, err
			}
			return api.ReleaseViewJSON(v), nil
		})
	tool(h, "list_automations", "A site's automations with their next and last runs (never a key's secret).",
		func(c call, _ SiteInput) (any, error) {
			list, err := h.aut.List(c.ctx, c.u, c.site.ID)
			if err != nil {
				return nil, err
			}
			settings, err := h.eng.ScheduleSettings(c.ctx, c.site.ID)
			if err != nil {
				return nil, err
			}
			out := make([]any, 0, len(list))
			for _, a := range list {
				out = append(out, api.AutomationJSON(c.u, a, settings.Paused))
			}
			return map[string]any{"automations": out}, nil
		})
	tool(h, "list_runs", "A site's runs, releases' and automations' alike, newest first.",
		func(c call, in ListRunsInput) (any, error) {
			page, err := h.aut.Runs(c.ctx, c.u, c.site.ID, automations.RunsQuery{AutomationID: in.AutomationID,
				ReleaseID: in.ReleaseID, State: in.State, Cursor: in.Cursor})
			if err != nil {
				return nil, err
			}
			out := make([]any, 0, len(page.Runs))
			for _, r := range page.Runs {
				out = append(out, api.RunJSON(r))
			}
			body := map[string]any{"runs": out}
			if page.NextCursor != "" {
				body["nextCursor"] = page.NextCursor
			}
			return body, nil
		})
	tool(h, "get_run", "One run (a ScheduleRun) with the ids of its audit rows, the snapshots it published and the approval requests it filed.",
		func(c call, in GetRunInput) (any, error) {
			d, err := h.aut.RunDetail(c.ctx, c.u, c.site.ID, in.RunID)
			if err != nil {
				return nil, err
			}
			return api.RunDetailJSON(d), nil
		})
	tool(h, "get_mode", "This call's mode and scopes; inside a run, the run.",
		func(c call, _ NoInput) (any, error) {
			scopes := make([]string, 0, len(c.u.Scopes))
			for _, s := range engine.HeldScopes(c.u) {
				scopes = append(scopes, string(s))
			}
			out := map[string]any{"mode": string(c.u.Agent.Mode), "scopes": scopes, "keyId": c.u.Agent.KeyID}
			if c.u.Agent.AutomationID != "" {
				out["automationId"] = c.u.Agent.AutomationID
			}
			if c.u.Agent.RunID != "" {
				// endsAt, budgetLeft and tainted come with begin_run.
				out["run"] = map[string]any{"runId": c.u.Agent.RunID}
			}
			return out, nil
		})
	tool(h, "list_content", "A site's pages and entries: each working copy with its rev, the live version and the release holding it.",
		func(c call, _ SiteInput) (any, error) {
			list, err := h.eng.Nodes(c.ctx, c.site.ID)
			if err != nil {
				return nil, err
			}
			out := []any{}
			for _, d := range list {
				if d.Kind == release.KindContentEntry || d.Kind == release.KindPage {
					out = append(out, api.NodeJSON(c.ctx, h.eng, c.u, d))
				}
			}
			return map[string]any{"content": out}, nil
		})
	tool(h, "get_content", "One page or entry: its working copy with its rev, the live version and the release holding it.",
		func(c call, in GetContentInput) (any, error) {
			d, err := h.eng.Node(c.ctx, c.site.ID, in.NodeID)
			if err == nil && d.Kind != release.KindContentEntry && d.Kind != release.KindPage {
				err = engine.ErrNotFound
			}
			if err != nil {
				return nil, err
			}
			return api.NodeJSON(c.ctx, h.eng, c.u, d), nil
		})
}
