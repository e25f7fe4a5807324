package mcp

import (
	"context"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/content"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers/wire"
	"studio/locales"
)

// call is what a tool's body gets: the agent (inside a run, with the run's
// id and mode), its context (in the owner's language), the site its siteId
// names ("" ID for a tool without one; a body may set it, for the audit
// row) and the run the call is made in (nil outside one).
type call struct {
	ctx  context.Context
	u    engine.User
	site engine.Site
	run  *automations.RunStatus
	// sitePaused: the key's site has its kill switch on (get_mode says so).
	sitePaused bool
	// wrote and requested: the body wrote (a version, a release) and
	// filed an approval request, for the run's ledger (§11.5).
	wrote, requested bool
}

// sited is a tool input that may name a site: site is the one it names,
// or for a tool that works on a site and names none, the key's own (a key
// acts on one site only); "" for a tool without a site.
type sited interface{ site(u engine.User) string }

// keyed is a tool input that may name the caller's own automation
// (begin_run, end_run, pause_automation): the gate lets the automation's key
// through whatever its scopes.
type keyed interface{ ownAutomation(u engine.User) bool }

// SiteInput is the siteId every site tool takes: optional, the key's own
// site when left out (get_mode names it); another site's is refused.
type SiteInput struct {
	SiteID string `json:"siteId,omitempty" jsonschema:"the site's id; leave it out for the key's own site"`
}

func (s SiteInput) site(u engine.User) string {
	if s.SiteID == "" {
		return u.SiteID
	}
	return s.SiteID
}

// tool adds a tool whose input is In: the run rules and the gate
// (automations.StartCall), the site (refused as the API refuses it:
// not_found), the body, the run's count (Call.End), the audit row. schema,
// when given, is In's schema with what a Go type cannot say (the values a
// field accepts).
func tool[In sited](h *Handler, name, desc string, body func(c *call, in In) (any, error), schema ...*jsonschema.Schema) {
	t := &sdk.Tool{Name: name, Description: desc}
	// The budget must have room for what the tool may do before it starts
	// (§11.5): a write for every class but read, a request for the
	// classes that wait for a person.
	spec, _ := policy.Tool(name)
	def, _ := spec.Variant("")
	writes := def.Class != policy.ClassRead
	requests := writes && def.Class != policy.ClassAdvisory
	if len(schema) > 0 {
		t.InputSchema = schema[0]
	} else {
		t.InputSchema = schemaOf[In](name)
	}
	tighten(t.InputSchema.(*jsonschema.Schema), reflect.TypeFor[In]())
	annotate(t)
	t.OutputSchema = outputFor(name)
	sdk.AddTool(h.server, t,
		func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			u, ok := agentOf(req)
			if !ok { // ServeHTTP lets no request without an agent through
				return errorResult(CodeUnauthenticated, locales.T(locales.With(ctx, "en"), "mcp.unauthenticated"), nil), nil, nil
			}
			c := &call{ctx: ctxOf(ctx, u), u: u}
			session := ""
			if req.Session != nil {
				session = req.Session.ID()
			}
			if u.Agent.AutomationID == "" {
				agent := *u.Agent
				agent.Tainted = h.sessions.used(session) // a person's key: its session's taint (§11.4)
				c.u.Agent = &agent
				u = c.u
			}
			cr := automations.CallRequest{Tool: name, MayWrite: writes, MayRequestApproval: requests, SiteID: in.site(u)}
			if k, ok := any(in).(keyed); ok {
				cr.AutomationKey = k.ownAutomation(u)
			}
			started, err := h.aut.StartCall(ctx, u, cr)
			c.u, c.run, c.sitePaused = started.User, started.Run, started.SitePaused
			c.ctx = engine.WithAgentCall(c.ctx, c.u) // the use case's audit rows are the run's
			var out any
			if err == nil {
				out, err = func() (any, error) {
					if id := in.site(c.u); id != "" {
						site, err := h.aut.AgentSite(ctx, c.u, id)
						if err != nil {
							return nil, err
						}
						c.site = site
					}
					return body(c, in)
				}()
				// What the body wrote counts whatever it answered after.
				res := automations.CallResult{Refused: err != nil, NotFound: engine.IsNotFound(err), Write: c.wrote,
					ApprovalRequest: c.requested}
				if eerr := started.End(ctx, res); eerr != nil {
					err = eerr
				}
				if err == nil && started.TaintsSession(res) {
					h.sessions.taint(session)
				}
			}
			code := ""
			var res *sdk.CallToolResult
			if err != nil && c.site.ID == "" {
				// A refusal's times read in the key's site's zone.
				c.site, _ = h.eng.Site(ctx, c.u.SiteID)
			}
			if err != nil {
				res, code = h.refused(c.ctx, c.site, err)
				out = nil
			}
			// The row is the key's own site's: a call naming another
			// site was refused before anything of it was read, and
			// leaves nothing there either.
			if aerr := h.eng.AuditToolCall(ctx, c.u, engine.ToolCall{Tool: name, Code: code}); aerr != nil {
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
	Text   string    `json:"text,omitempty" jsonschema:"only items whose title has this text (case and Turkish letters folded; at most 100 characters)"`
	Cursor string    `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
}

// listScheduleSchema is ListScheduleInput's schema with the values states
// and origin accept, so that the SDK refuses any other (bad_request).
func listScheduleSchema() *jsonschema.Schema {
	s := schemaOf[ListScheduleInput]("list_schedule")
	s.Properties["types"].Items.Enum = enum(calendar.ItemTypes)
	s.Properties["states"].Items.Enum = enum(calendar.StateFacets)
	s.Properties["origin"].Enum = enum([]string{"person", "agent"})
	return s
}

// schemaOf is In's input schema, for a tool that adds to it what a Go type
// cannot say.
func schemaOf[In any](tool string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic("mcp: " + tool + " schema: " + err.Error())
	}
	return s
}

// tighten says in the schema what jsonschema.For leaves out of a tool's
// input type: a time is a string of format date-time (RFC 3339), and a
// required array is an array, never null.
func tighten(s *jsonschema.Schema, typ reflect.Type) {
	required := map[string]bool{}
	for _, name := range s.Required {
		required[name] = true
	}
	for f := range fieldsOf(typ) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if ft := f.Type; ft == reflect.TypeFor[time.Time]() || ft == reflect.TypeFor[*time.Time]() {
			p.Format = "date-time"
		}
		if required[name] && slices.Equal(p.Types, []string{"null", "array"}) {
			p.Type, p.Types = "array", nil
		}
	}
}

// fieldsOf yields a struct's fields, those of embedded structs in their
// place (as encoding/json sees them).
func fieldsOf(typ reflect.Type) iter.Seq[reflect.StructField] {
	return func(yield func(reflect.StructField) bool) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				for g := range fieldsOf(f.Type) {
					if !yield(g) {
						return
					}
				}
				continue
			}
			if f.IsExported() && !yield(f) {
				return
			}
		}
	}
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
	s := schemaOf[ListReleasesInput]("list_releases")
	states := make([]string, len(release.States))
	for i, st := range release.States {
		states[i] = string(st)
	}
	s.Properties["state"].Enum = enum(states)
	lo, hi := 1.0, float64(releases.ReleaseListMax)
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

// ListContentInput is list_content's input: filters, and the page after
// cursor.
type ListContentInput struct {
	SiteInput
	Kind         string     `json:"kind,omitempty" jsonschema:"entry (an article) or page; both when absent"`
	Status       string     `json:"status,omitempty" jsonschema:"draft or published: the working copy's status"`
	Query        string     `json:"q,omitempty" jsonschema:"words in the title, the address or the text (case and Turkish letters folded)"`
	UpdatedSince *time.Time `json:"updatedSince,omitempty" jsonschema:"only what was changed at or after this instant, RFC 3339"`
	Cursor       string     `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
}

func listContentSchema() *jsonschema.Schema {
	s := schemaOf[ListContentInput]("list_content")
	s.Properties["kind"].Enum = enum([]string{"entry", "page"})
	s.Properties["status"].Enum = enum([]string{string(content.StatusDraft), string(content.StatusPublished)})
	hi := 200
	s.Properties["q"].MaxLength = &hi
	return s
}

// contentFilter is in as the content list's filter and page (from 1).
func contentFilter(in ListContentInput) (nodes.NodeFilter, int, error) {
	f := nodes.NodeFilter{Status: content.Status(in.Status), Search: in.Query, NoAssets: true}
	switch in.Kind {
	case "entry":
		f.Kind = release.KindContentEntry
	case "page":
		f.Kind = release.KindPage
	}
	if in.UpdatedSince != nil {
		f.UpdatedSince = *in.UpdatedSince
	}
	page := 1
	if in.Cursor != "" {
		n, err := strconv.Atoi(in.Cursor)
		if err != nil || n < 2 || n > 1_000_000 {
			return f, 0, engine.Refuse(releases.CodeBadCursor, "cursor")
		}
		page = n
	}
	return f, page, nil
}

// GetContentInput is get_content's input.
type GetContentInput struct {
	SiteInput
	NodeID string `json:"nodeId"`
}

// BeginRunInput is begin_run's input (§12).
type BeginRunInput struct {
	AutomationID string `json:"automationId" jsonschema:"the automation this key belongs to"`
}

func (BeginRunInput) site(engine.User) string             { return "" }
func (in BeginRunInput) ownAutomation(u engine.User) bool { return ownAutomation(u, in.AutomationID) }

// EndRunInput is end_run's input (§12).
type EndRunInput struct {
	RunID   string `json:"runId" jsonschema:"the runId begin_run answered"`
	Summary string `json:"summary" jsonschema:"what the run did, plain text of at most 2,000 characters"`
	Outcome string `json:"outcome" jsonschema:"how the run ended"`
}

func (EndRunInput) site(engine.User) string { return "" }

// ownAutomation: end_run names the key's run, which EndRun checks.
func (EndRunInput) ownAutomation(u engine.User) bool {
	return u.Agent != nil && u.Agent.AutomationID != ""
}

func endRunSchema() *jsonschema.Schema {
	s := schemaOf[EndRunInput]("end_run")
	outcomes := make([]string, len(automation.Outcomes))
	for i, o := range automation.Outcomes {
		outcomes[i] = string(o)
	}
	s.Properties["outcome"].Enum = enum(outcomes)
	hi := automations.MaxSummaryLength
	s.Properties["summary"].MaxLength = &hi
	return s
}

// PauseAutomationInput is pause_automation's input (§12).
type PauseAutomationInput struct {
	AutomationID string `json:"automationId" jsonschema:"the automation to pause: this key's own, or one of its owner's"`
	Reason       string `json:"reason,omitempty" jsonschema:"why, plain text of at most 500 characters"`
}

func (PauseAutomationInput) site(engine.User) string { return "" }
func (in PauseAutomationInput) ownAutomation(u engine.User) bool {
	return ownAutomation(u, in.AutomationID)
}

func ownAutomation(u engine.User, id string) bool {
	return u.Agent != nil && u.Agent.AutomationID != "" && u.Agent.AutomationID == id
}

func pauseSchema() *jsonschema.Schema {
	s := schemaOf[PauseAutomationInput]("pause_automation")
	hi := automations.MaxPauseReasonLength
	s.Properties["reason"].MaxLength = &hi
	return s
}

// envelopeJSON is begin_run's RunEnvelope (§11.2, §12).
func envelopeJSON(e automations.Envelope) map[string]any {
	return map[string]any{"runId": e.RunID, "automationId": e.AutomationID, "site": siteJSON(e.Site), "instructions": e.Instructions,
		"mode": string(e.Mode), "tools": e.Tools, "budget": e.Budget, "window": e.Window, "endsAt": e.EndsAt,
		"tainted": e.Tainted, "rules": e.Rules}
}

// siteJSON names the key's site to an agent: every site tool takes its
// id, the name is what its instructions call it, and local times are in
// its zone.
func siteJSON(s engine.Site) map[string]any {
	return map[string]any{"id": s.ID, "name": s.Name, "timeZone": s.TimeZone, "lang": s.Lang, "publicUrl": s.PublicURL}
}

// NoInput is the input of a tool without arguments (get_mode).
type NoInput struct{}

func (NoInput) site(engine.User) string { return "" }

func (h *Handler) addTools() {
	tool(h, "list_schedule", "A site's calendar in [from, to): releases, gates and automation occurrences, in time order (at most 200 a page).",
		func(c *call, in ListScheduleInput) (any, error) {
			q := calendar.CalendarQuery{SiteID: c.site.ID, From: in.From, To: in.To, Types: in.Types, States: in.States,
				Text: in.Text, Cursor: in.Cursor}
			if in.Origin != "" {
				q.Origins = []string{in.Origin}
			}
			return h.cal.Calendar(c.ctx, c.u, q)
		}, listScheduleSchema())
	tool(h, "get_schedule", "One calendar item by its id, as list_schedule lists it.",
		func(c *call, in GetScheduleInput) (any, error) {
			return h.cal.Item(c.ctx, c.u, c.site.ID, in.ID)
		})
	tool(h, "list_releases", "A site's releases timed from now for 400 days and the open ones without a time, in time order, at most 50 a page.",
		func(c *call, in ListReleasesInput) (any, error) {
			page, err := h.releases.ReleaseList(c.ctx, c.u, releases.ReleaseListQuery{SiteID: c.site.ID, State: release.State(in.State),
				Cursor: in.Cursor, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			body := map[string]any{"releases": wire.PageOf(page)}
			if page.NextCursor != "" {
				body["nextCursor"] = page.NextCursor
			}
			return body, nil
		}, listReleasesSchema())
	tool(h, "get_release", "One release as a ReleaseView: its items with titles and paths, closureAdded, overlaps, lockedNodes and the waiting request.",
		func(c *call, in GetReleaseInput) (any, error) {
			v, err := h.releases.ReleaseView(c.ctx, c.u, c.site.ID, in.ReleaseID)
			if err != nil {
				return nil, err
			}
			return wire.ReleaseViewOf(v), nil
		})
	tool(h, "list_automations", "A site's automations with their next and last runs (never a key's secret).",
		func(c *call, _ SiteInput) (any, error) {
			list, err := h.aut.ListAnswers(c.ctx, c.u, c.site.ID)
			if err != nil {
				return nil, err
			}
			out := make([]any, 0, len(list))
			for _, a := range list {
				out = append(out, wire.AutomationOf(a))
			}
			return map[string]any{"automations": out}, nil
		})
	tool(h, "list_runs", "A site's runs, releases' and automations' alike, newest first.",
		func(c *call, in ListRunsInput) (any, error) {
			page, err := h.aut.Runs(c.ctx, c.u, c.site.ID, automations.RunsQuery{AutomationID: in.AutomationID,
				ReleaseID: in.ReleaseID, State: in.State, Cursor: in.Cursor})
			if err != nil {
				return nil, err
			}
			out := make([]any, 0, len(page.Runs))
			for _, r := range page.Runs {
				out = append(out, wire.RunOf(r))
			}
			body := map[string]any{"runs": out}
			if page.NextCursor != "" {
				body["nextCursor"] = page.NextCursor
			}
			return body, nil
		})
	tool(h, "get_run", "One run (a ScheduleRun) with the ids of its audit rows, the snapshots it published and the approval requests it filed.",
		func(c *call, in GetRunInput) (any, error) {
			d, err := h.aut.RunDetail(c.ctx, c.u, c.site.ID, in.RunID)
			if err != nil {
				return nil, err
			}
			return wire.RunDetailOf(d), nil
		})
	tool(h, "get_mode", "This call's mode and scopes, and whether the key's site is paused (then every other tool but pause_automation is refused); inside a run, the run; for a person's key, whether this session is tainted.",
		func(c *call, _ NoInput) (any, error) {
			scopes := make([]string, 0, len(c.u.Scopes))
			for _, s := range engine.HeldScopes(c.u) {
				scopes = append(scopes, string(s))
			}
			site, err := h.eng.Site(c.ctx, c.u.SiteID)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"mode": string(c.u.Agent.Mode), "scopes": scopes, "keyId": c.u.Agent.KeyID,
				"site": siteJSON(site), "sitePaused": c.sitePaused}
			if c.u.Agent.AutomationID != "" {
				out["automationId"] = c.u.Agent.AutomationID
			} else {
				out["tainted"] = c.u.Agent.Tainted // this session read visitor-supplied text (§11.4)
			}
			if r := c.run; r != nil {
				out["run"] = map[string]any{"runId": r.RunID, "endsAt": r.EndsAt, "budgetLeft": r.BudgetLeft, "tainted": r.Tainted}
			}
			return out, nil
		})
	tool(h, "begin_run", "Begin this automation's run inside its window: the run's envelope (instructions, mode, tools, budget, endsAt, rules). Once per occurrence.",
		func(c *call, in BeginRunInput) (any, error) {
			env, err := h.aut.BeginRun(c.ctx, c.u, in.AutomationID)
			if err != nil {
				return nil, err
			}
			c.u.Agent.RunID = env.RunID // the call's audit row is the run's
			c.site = env.Site
			return envelopeJSON(env), nil
		})
	tool(h, "end_run", "End this key's open run with a summary (plain text) and an outcome.",
		func(c *call, in EndRunInput) (any, error) {
			r, err := h.aut.EndRun(c.ctx, c.u, in.RunID, in.Summary, automation.Outcome(in.Outcome))
			if err != nil {
				return nil, err
			}
			c.site.ID = r.SiteID
			return map[string]any{"run": wire.RunOf(r)}, nil
		}, endRunSchema())
	tool(h, "pause_automation", "Pause an automation (this key's own in every mode, or one of its owner's with schedules:write). Its run in progress stops; a person resumes it.",
		func(c *call, in PauseAutomationInput) (any, error) {
			a, err := h.aut.Answering(c.ctx, c.u, func() (automations.Automation, error) {
				a, err := h.aut.PauseByAgent(c.ctx, c.u, in.AutomationID, in.Reason)
				if err == nil {
					c.site.ID = a.SiteID
				}
				return a, err
			})
			if err != nil {
				return nil, err
			}
			return map[string]any{"automation": wire.AutomationOf(a)}, nil
		}, pauseSchema())
	tool(h, "list_content", "A site's pages and articles, last changed first, 50 a page: each with its working copy's fields (not its text: get_content has it), its rev, the live version and the release holding it. Filters: kind, status, q (words), updatedSince.",
		func(c *call, in ListContentInput) (any, error) {
			f, page, err := contentFilter(in)
			if err != nil {
				return nil, err
			}
			list, more, err := h.nodes.ListNodeAnswers(c.ctx, c.u, c.site.ID, f, page)
			if err != nil {
				return nil, err
			}
			out := []any{}
			for _, a := range list {
				a.Body.Text = "" // a page of 50 bodies is the site; get_content reads one
				out = append(out, wire.NodeAnswerOf(a))
			}
			body := map[string]any{"content": out}
			if more {
				body["nextCursor"] = strconv.Itoa(page + 1)
			}
			return body, nil
		}, listContentSchema())
	tool(h, "describe_site", "What to know of the site before working on it: its id, name, time zone (every local time is in it unless a timeZone is given), language and public address; the kinds of content and the fields save_draft takes; the statuses.",
		func(c *call, _ SiteInput) (any, error) {
			fields := []map[string]string{
				{"name": "title", "about": "one line, required"},
				{"name": "slug", "about": "the address, lowercase words joined by -; made from the title when left out"},
				{"name": "summary", "about": "a sentence or two for lists and sharing"},
				{"name": "body", "about": "the text, in Markdown"},
				{"name": "lang", "about": "en or tr; the site's language when left out"},
			}
			return map[string]any{"site": siteJSON(c.site),
				"kinds": []map[string]any{
					{"kind": "entry", "about": "an article: dated, listed on the site's front page and in its feed", "fields": fields},
					{"kind": "page", "about": "a page at its own address, outside the article lists", "fields": fields},
				},
				"statuses": []string{string(content.StatusDraft), string(content.StatusPublished)},
			}, nil
		})
	tool(h, "get_content", "One page or entry: its working copy with its rev, the live version and the release holding it.",
		func(c *call, in GetContentInput) (any, error) {
			a, err := h.nodes.NodeAnswer(c.ctx, c.u, c.site.ID, in.NodeID)
			if err == nil && a.Kind != release.KindContentEntry && a.Kind != release.KindPage {
				err = engine.ErrNotFound
			}
			if err != nil {
				return nil, err
			}
			return wire.NodeAnswerOf(a), nil
		})
}
