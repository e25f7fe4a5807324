// Package handlers joins every surface into one HTTP handler. All routes sit
// in the one table below, each with the scope it needs: a route without a
// scope does not start (default deny).
package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/policy"
	"studio/engine/scheduler"
	"studio/engine/services"
	"studio/handlers/api"
	"studio/handlers/mcp"
	"studio/handlers/metrics"
	"studio/handlers/oauth"
	"studio/handlers/site"
	"studio/handlers/studio"
	"studio/handlers/wire"
	"studio/web/static"
	"studio/web/templates"
)

// Access levels that are not scopes.
const (
	// Anyone may call the route, signed in or not.
	Anyone policy.Scope = "anyone"
	// AgentKey: the route takes an agent key (Authorization: Bearer), never
	// a cookie or a person's token; each tool then passes its own row of
	// §12's table (engine.AgentMayCall).
	AgentKey policy.Scope = "agent-key"
	// DeployToken: the route takes a deploy token (`studio token create
	// --deploy`, Authorization: Bearer) and nothing else, no person's token
	// or session: an operator's tools (api.DeployGuard).
	DeployToken policy.Scope = "deploy-token"
	// MetricsToken: the route takes serve's --metrics-token (Authorization:
	// Bearer) and answers 404 to anyone without it.
	MetricsToken policy.Scope = "metrics-token"
)

// OperatorRoutes is the table of what operators' tools read: the metrics,
// behind their token. Mounted on the main address only when serve has a
// --metrics-token; whoever lacks it gets notFound, the answer of a path
// nothing serves, so the route's existence is not told either. serve's
// --metrics-addr mounts the same table with no token, off the public
// address.
func OperatorRoutes(m *metrics.Metrics, token string, notFound http.Handler) []Route {
	return []Route{
		{"GET", "/metrics", MetricsToken, m.Handler(token, notFound).ServeHTTP},
	}
}

// Route is one row of the route table.
type Route struct {
	Method  string
	Pattern string
	Scope   policy.Scope
	Handler http.HandlerFunc
}

// StudioRoutes is the table of Studio's pages for people. Every row passes
// through the session, the cross-origin and CSRF checks and its scope, and
// takes an ordinary form as its body: at most studio.DefaultBodyMax bytes,
// never a file (multipart/form-data is refused unread, 415). A route that
// takes files, or a larger body, is also named in StudioBodies below.
func StudioRoutes(s *studio.Handler) []Route {
	return []Route{
		{"GET", "/studio/login", Anyone, s.LoginForm},
		{"POST", "/studio/login", Anyone, s.Login},
		{"POST", "/studio/logout", Anyone, s.Logout},
		{"POST", "/studio/lang", Anyone, s.SetLanguage},
		// The first run (issue 15): only with the one-time token serve printed.
		{"GET", "/studio/setup", Anyone, s.SetupForm},
		{"POST", "/studio/setup", Anyone, s.Setup},
		// An invitation's link: the invited person joins the site (issue 15).
		{"GET", "/studio/join", Anyone, s.JoinForm},
		{"POST", "/studio/join", Anyone, s.Join},
		// A password reset link: the person chooses a new password.
		{"GET", "/studio/reset", Anyone, s.ResetForm},
		{"POST", "/studio/reset", Anyone, s.Reset},

		// A site's Studio: its Schedules page.
		{"GET", "/studio", policy.SchedulesRead, s.Home},
		// The Schedules page (§15.1): the Agenda or the Month; its URL is its
		// state, and htmx asks it for the #calendar fragment.
		{"GET", "/studio/schedules", policy.SchedulesRead, s.Calendar},
		// A draft's page edits it; any other state shows the release.
		{"GET", "/studio/releases/{id}", policy.SchedulesRead, s.ReleaseOrDraft},
		// Draft releases (§5.2 "(new) → draft", §6.1, §13 POST …/releases,
		// PATCH, POST …/items, POST …/schedule): only the creator or an
		// approver changes one (the engine checks), all while it is a draft.
		{"GET", "/studio/releases/new", policy.SchedulesWrite, s.NewReleaseForm},
		{"POST", "/studio/releases", policy.SchedulesWrite, s.CreateRelease},
		{"POST", "/studio/releases/{id}/rename", policy.SchedulesWrite, s.RenameDraft},
		{"POST", "/studio/releases/{id}/items", policy.SchedulesWrite, s.AddDraftItems},
		{"POST", "/studio/releases/{id}/items/remove", policy.SchedulesWrite, s.RemoveDraftItem},
		{"POST", "/studio/releases/{id}/repin-draft", policy.SchedulesWrite, s.RepinDraft},
		{"POST", "/studio/releases/{id}/schedule", policy.SchedulesWrite, s.ScheduleDraft},
		{"GET", "/studio/releases/{id}/schedule/preview", policy.SchedulesWrite, s.SchedulePreview},
		{"POST", "/studio/releases/{id}/unschedule", policy.SchedulesWrite, s.Unschedule},
		{"POST", "/studio/releases/{id}/cancel", policy.SchedulesWrite, s.Cancel},
		{"POST", "/studio/releases/{id}/uncancel", policy.SchedulesWrite, s.UndoCancel},
		{"GET", "/studio/releases/{id}/media/{side}/{slug}", policy.SchedulesRead, s.ReviewMedia},
		{"GET", "/studio/media/{slug}", policy.ContentRead, s.WorkingMedia},
		{"POST", "/studio/releases/{id}/move", policy.SchedulesWrite, s.Move},
		// The Month grid's own fragments (§15.2, §15.6): the grid alone (after
		// a move, "Load the latest"), a day's panel on a phone, and a move
		// confirmed in the dialog a drop opens, answered with the grid and
		// an Undo toast. As pages they redirect to the Schedules page.
		{"GET", "/studio/schedules/month/grid", policy.SchedulesRead, s.MonthGridFragment},
		{"GET", "/studio/schedules/month/day", policy.SchedulesRead, s.MonthDayPanel},
		{"POST", "/studio/releases/{id}/move-calendar", policy.SchedulesWrite, s.MoveFromCalendar},
		// A person's manual run of a missed, expired or scheduled release
		// (§8.6, §13 publish-now): someone who may approve it.
		{"POST", "/studio/releases/{id}/publish-now", policy.ReleasesPublish, s.PublishNow},
		// A conflict re-pinned or re-based (§6.4): the engine decides whether
		// it is approved in the same act (releases:publish) or sent for approval.
		{"POST", "/studio/releases/{id}/repin", policy.SchedulesWrite, s.Repin},
		{"POST", "/studio/releases/{id}/rebase", policy.SchedulesWrite, s.Rebase},
		{"GET", "/studio/releases/{id}/undo", policy.SitePublish, s.UndoForm},
		{"POST", "/studio/releases/{id}/undo", policy.SitePublish, s.Undo},
		// Automations (§11): Run now from the Automations list, a calendar
		// occurrence's menu or a run's "Check again"; people who manage
		// automations (automations:manage, as in the API).
		{"POST", "/studio/schedules/automations/{id}/run-now", policy.AutomationsManage, s.RunAutomationNow},
		// The Automations tab and the automation editor (§15.1, §15.4):
		// everyone who reads schedules sees them (and an automation
		// read-only); creating, saving, the On switch and deleting are
		// automations:manage. The preview is the editor's next five runs.
		{"GET", "/studio/schedules/automations", policy.SchedulesRead, s.Automations},
		{"GET", "/studio/schedules/automations/new", policy.AutomationsManage, s.NewAutomation},
		{"GET", "/studio/schedules/automations/preview", policy.SchedulesRead, s.AutomationPreviewFragment},
		{"POST", "/studio/schedules/automations", policy.AutomationsManage, s.CreateAutomation},
		{"GET", "/studio/schedules/automations/{id}", policy.SchedulesRead, s.EditAutomation},
		{"POST", "/studio/schedules/automations/{id}", policy.AutomationsManage, s.SaveAutomation},
		{"POST", "/studio/schedules/automations/{id}/pause", policy.AutomationsManage, s.PauseAutomation},
		{"POST", "/studio/schedules/automations/{id}/resume", policy.AutomationsManage, s.ResumeAutomation},
		{"POST", "/studio/schedules/automations/{id}/take-over", policy.AutomationsManage, s.TakeOverAutomation},
		{"GET", "/studio/schedules/automations/{id}/delete", policy.AutomationsManage, s.DeleteAutomationForm},
		{"POST", "/studio/schedules/automations/{id}/delete", policy.AutomationsManage, s.DeleteAutomation},
		// History (§15.1, §11.7): every run of the site's automations and
		// releases, filtered in the URL; one run's page with its findings;
		// and "Not a problem" on a finding, a change to the automation's
		// findings that only people who manage automations make (jobs.Dismiss
		// refuses anyone else).
		{"GET", "/studio/schedules/history", policy.SchedulesRead, s.History},
		// The site's History: its audit rows, and their export (issue 15).
		{"GET", "/studio/history", policy.SchedulesRead, s.SiteHistory},
		{"GET", "/studio/history.csv", policy.SchedulesRead, s.SiteHistoryCSV},
		{"GET", "/studio/schedules/runs/{id}", policy.SchedulesRead, s.Run},
		{"POST", "/studio/schedules/runs/{id}/dismiss", policy.AutomationsManage, s.DismissFinding},
		{"GET", "/studio/notifications", policy.SchedulesRead, s.Notifications},
		{"GET", "/studio/approvals", policy.SchedulesRead, s.Approvals},
		{"GET", "/studio/approvals/{id}", policy.SchedulesRead, s.ApprovalPage},
		{"POST", "/studio/approvals/{id}/approve", policy.ReleasesPublish, s.Approve},
		{"POST", "/studio/approvals/{id}/deny", policy.ReleasesPublish, s.Deny},

		{"GET", "/studio/content", policy.ContentRead, s.ContentList},
		{"POST", "/studio/content", policy.ContentWrite, s.SaveNode},
		{"POST", "/studio/content/publish", policy.SitePublish, s.PublishSite},
		{"GET", "/studio/content/new", policy.ContentWrite, s.NewNode},
		{"GET", "/studio/content/{id}", policy.ContentRead, s.EditNode},
		{"POST", "/studio/content/{id}", policy.ContentWrite, s.SaveNode},
		{"POST", "/studio/content/{id}/delete", policy.ContentWrite, s.DeleteNode},
		// The media editor (a file and its fields): the only Studio forms
		// that upload, multipart/form-data up to studio.MaxUploadBytes.
		{"POST", "/studio/content/media", policy.ContentWrite, s.SaveMedia},
		// The editor's Markdown preview (htmx), as the public site renders it.
		{"POST", "/studio/content/preview-text", policy.ContentWrite, s.PreviewText},
		// The editor's image upload (editor.js): JSON, for its progress bar.
		{"POST", "/studio/content/upload", policy.ContentWrite, s.UploadImage},
		{"POST", "/studio/content/{id}/media", policy.ContentWrite, s.SaveMedia},
		// The image of a media file's working copy, for the editor's preview.
		{"GET", "/studio/content/{id}/file", policy.ContentRead, s.MediaFile},
		// A signed preview link of the working copy (§7.3), for 24 hours.
		{"GET", "/studio/content/{id}/preview", policy.ContentRead, s.Preview},
		{"GET", "/studio/content/{id}/schedule", policy.SchedulesWrite, s.ScheduleForm},
		{"GET", "/studio/content/{id}/schedule/preview", policy.SchedulesWrite, s.SchedulePreview},
		{"POST", "/studio/content/{id}/schedule", policy.SchedulesWrite, s.Schedule},
		// The editor's Schedule card (§7.6, D8): a node's gates, saved with
		// its working copy or, on a live node, published as a one-item
		// release (the engine decides: at once, or sent for approval); and
		// lifting a live embargo, a person's act for Editors and above.
		{"POST", "/studio/content/{id}/gates", policy.SchedulesWrite, s.SaveGates},
		{"POST", "/studio/content/{id}/gates/lift", policy.ReleasesPublish, s.LiftEmbargo},
		// "Edit and re-approve" / "Edit and send for approval" of a held node
		// (§6.2); the engine also requires content:write.
		{"GET", "/studio/content/{id}/edit-scheduled", policy.SchedulesWrite, s.EditScheduledForm},
		{"POST", "/studio/content/{id}/edit-scheduled", policy.SchedulesWrite, s.EditScheduled},

		// A new site (issue 15): for Owners (engine.MayAddSite decides), who
		// become the new site's Owners.
		{"GET", "/studio/sites/new", policy.SiteSettings, s.NewSiteForm},
		{"POST", "/studio/sites", policy.SiteSettings, s.CreateSite},
		// The site's people: Owners and Administrators (engine/people).
		{"GET", "/studio/people", policy.SiteSettings, s.People},
		{"POST", "/studio/people/invitations", policy.SiteSettings, s.Invite},
		{"POST", "/studio/people/invitations/{id}/revoke", policy.SiteSettings, s.RevokeInvitation},
		{"POST", "/studio/people/{id}/role", policy.SiteSettings, s.SetRole},
		{"POST", "/studio/people/{id}/remove", policy.SiteSettings, s.RemoveMember},
		{"POST", "/studio/people/{id}/reset-password", policy.SiteSettings, s.ResetPasswordLink},
		// Site settings (§15.1): the time zone, language and address, and
		// the Schedules section, for Administrators and above (§10.2).
		{"GET", "/studio/settings", policy.SiteSettings, s.Settings},
		{"POST", "/studio/settings/time-zone", policy.SiteSettings, s.SaveTimeZone},
		{"POST", "/studio/settings/lang", policy.SiteSettings, s.SaveSiteLang},
		{"POST", "/studio/settings/address", policy.SiteSettings, s.SaveAddress},
		{"POST", "/studio/settings/pause", policy.SiteSettings, s.PauseSchedules},
		{"POST", "/studio/settings/resume", policy.SiteSettings, s.ResumeSchedules},
		{"POST", "/studio/settings/daily-write-cap", policy.SiteSettings, s.SaveDailyWriteCap},

		// A person's own access tokens for the JSON API. Everyone signed in
		// manages their own: every role holds schedules:read.
		// Your account: every member's own (issue 15).
		{"GET", "/studio/account", policy.SchedulesRead, s.Account},
		{"POST", "/studio/account/profile", policy.SchedulesRead, s.SaveProfile},
		{"POST", "/studio/account/password", policy.SchedulesRead, s.ChangePassword},
		{"POST", "/studio/account/sessions/end-others", policy.SchedulesRead, s.EndOtherSessions},
		{"POST", "/studio/account/sessions/{id}/end", policy.SchedulesRead, s.EndSession},
		{"GET", "/studio/tokens", policy.SchedulesRead, s.Tokens},
		{"POST", "/studio/tokens", policy.SchedulesRead, s.CreateToken},
		{"POST", "/studio/tokens/{id}/revoke", policy.SchedulesRead, s.RevokeToken},
		// A person's agent keys (RFC §10.1, §11.2): every role may mint keys
		// within its role, so the page needs only schedules:read; the use
		// case checks the mode and scopes against the role.
		// What waits beside the navigation's entries, for every page.
		{"GET", "/studio/nav/counts", policy.SchedulesRead, s.NavCounts},
		{"GET", "/studio/agents", policy.SchedulesRead, s.Agents},
		{"POST", "/studio/agents", policy.SchedulesRead, s.CreateAgentKey},
		// The guide to connecting agents, and one key's page (how to
		// connect with it): a key that is not the person's to see is not
		// found.
		{"GET", "/studio/agents/guide", policy.SchedulesRead, s.AgentsGuide},
		{"GET", "/studio/agents/{id}", policy.SchedulesRead, s.AgentKey},
		// OAuth's consent page (issue 38): a signed-in person lets a
		// connector act as an agent key of theirs on this site, within
		// their role (the use case checks the mode and scopes).
		{"GET", "/studio/oauth/authorize", policy.SchedulesRead, s.OAuthAuthorize},
		{"POST", "/studio/oauth/authorize", policy.SchedulesRead, s.OAuthDecide},
		{"POST", "/studio/agents/{id}/revoke", policy.SchedulesRead, s.RevokeAgentKey},
	}
}

// StudioBodies names the Studio routes (method and pattern, as in
// StudioRoutes) whose body is not an ordinary form's, with what they take:
// e.g. "POST /studio/content/{id}/media": {Files: true, Max: 20 << 20} for
// a form with a file field. Only these parse multipart/form-data, and only
// for someone signed in; Prepare removes the parsed files' temp copies when
// the request ends, whatever the handler did. New refuses to start when a
// name here matches no row.
func StudioBodies() map[string]studio.Body {
	return map[string]studio.Body{
		// The media editor's form: a new media file, and a new version of one.
		"POST /studio/content/media": {Files: true, Max: studio.MaxUploadBytes},
		// The editor's upload answers editor.js in JSON, refusals too.
		"POST /studio/content/upload":     {Files: true, Max: studio.MaxUploadBytes, JSON: true},
		"POST /studio/content/{id}/media": {Files: true, Max: studio.MaxUploadBytes},
	}
}

// APIRoutes is the table of the JSON API (RFC §13). Every row passes through
// authentication (a bearer token, or the Studio session with its CSRF token
// on state-changing requests) and its scope. A guard admits a scope held
// at any level (engine.User.Passes: schedules:write admits the RFC's
// schedules:write:own, releases:publish releases:publish:own); the use case
// keeps a person at the own level to their own nodes.
func APIRoutes(a *api.Handler) []Route {
	return []Route{
		{"GET", "/api/scheduler", policy.SchedulesRead, a.Scheduler},
		// What this deployment offers (§13 features.schedules).
		{"GET", "/api/instance", policy.SchedulesRead, a.Instance},
		// The operator routes (§13): the scheduler's status over every site
		// (`studio schedules status --remote`) and a manual tick.
		{"GET", "/api/admin/schedules/status", DeployToken, a.AdminStatus},
		{"POST", "/api/admin/schedules/run-due", DeployToken, a.AdminRunDue},
		{"GET", "/api/sites", policy.SchedulesRead, a.Sites},
		// The calendar (§12 list_schedule, §13 GET …/schedule): releases,
		// gates and automation occurrences, one time-ordered page at a time.
		{"GET", "/api/sites/{siteId}/schedule", policy.SchedulesRead, a.Schedule},
		{"GET", "/api/sites/{siteId}/releases", policy.SchedulesRead, a.Releases},
		{"GET", "/api/sites/{siteId}/releases/{releaseId}", policy.SchedulesRead, a.Release},
		{"GET", "/api/sites/{siteId}/releases/{releaseId}/diff", policy.SchedulesRead, a.Diff},
		// Drafts (§5.2 "(new) → draft", §6.1, §13 POST …/releases, PATCH,
		// POST …/items, …/schedule) and re-pinning a draft or resolving a
		// conflict (§6.4 …/repin, …/rebase): only the creator or an approver
		// changes one (the engine checks), and the engine decides whether a
		// schedule or a conflict's re-pin is approved in the same act.
		{"POST", "/api/sites/{siteId}/releases", policy.SchedulesWrite, a.CreateRelease},
		{"PATCH", "/api/sites/{siteId}/releases/{releaseId}", policy.SchedulesWrite, a.PatchRelease},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/items", policy.SchedulesWrite, a.AddReleaseItems},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/schedule", policy.SchedulesWrite, a.ScheduleRelease},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/repin", policy.SchedulesWrite, a.Repin},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/rebase", policy.SchedulesWrite, a.Rebase},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/reschedule", policy.SchedulesWrite, a.Reschedule},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/unschedule", policy.SchedulesWrite, a.Unschedule},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/cancel", policy.SchedulesWrite, a.Cancel},
		{"POST", "/api/sites/{siteId}/releases/{releaseId}/publish-now", policy.ReleasesPublish, a.PublishNow},
		// Gates (§7.6, §13): {nodeId, expectedRev, from?, until?, apply};
		// lifting a live embargo early with a reason (D8).
		{"POST", "/api/sites/{siteId}/gates", policy.SchedulesWrite, a.SetGates},
		{"POST", "/api/sites/{siteId}/gates/{nodeId}/lift", policy.ReleasesPublish, a.LiftEmbargo},
		{"GET", "/api/sites/{siteId}/notifications", policy.SchedulesRead, a.Notifications},

		// Automations (§11, §13): reading with schedules:read; every change
		// is automations:manage, which only people hold (no token carries
		// it). Runs of releases and automations alike (§12 list_runs).
		{"GET", "/api/sites/{siteId}/automations", policy.SchedulesRead, a.Automations},
		{"POST", "/api/sites/{siteId}/automations", policy.AutomationsManage, a.CreateAutomation},
		{"POST", "/api/sites/{siteId}/automations/preview-rule", policy.SchedulesRead, a.PreviewRule},
		{"GET", "/api/sites/{siteId}/automations/{automationId}", policy.SchedulesRead, a.Automation},
		{"PATCH", "/api/sites/{siteId}/automations/{automationId}", policy.AutomationsManage, a.PatchAutomation},
		{"DELETE", "/api/sites/{siteId}/automations/{automationId}", policy.AutomationsManage, a.DeleteAutomation},
		{"POST", "/api/sites/{siteId}/automations/{automationId}/pause", policy.AutomationsManage, a.PauseAutomation},
		{"POST", "/api/sites/{siteId}/automations/{automationId}/resume", policy.AutomationsManage, a.ResumeAutomation},
		{"POST", "/api/sites/{siteId}/automations/{automationId}/take-over", policy.AutomationsManage, a.TakeOverAutomation},
		{"POST", "/api/sites/{siteId}/automations/{automationId}/run-now", policy.AutomationsManage, a.RunAutomationNow},
		{"GET", "/api/sites/{siteId}/runs", policy.SchedulesRead, a.Runs},
		{"GET", "/api/sites/{siteId}/runs/{runId}", policy.SchedulesRead, a.Run},

		// Approvals (§10.4): anyone who reads schedules sees the requests;
		// deciding is for those who may publish, never the requester.
		{"GET", "/api/sites/{siteId}/approvals", policy.SchedulesRead, a.Approvals},
		{"GET", "/api/sites/{siteId}/approvals/{approvalId}", policy.SchedulesRead, a.Approval},
		{"POST", "/api/sites/{siteId}/approvals/{approvalId}/approve", policy.ReleasesPublish, a.Approve},
		{"POST", "/api/sites/{siteId}/approvals/{approvalId}/deny", policy.ReleasesPublish, a.Deny},

		// The kill switch and the daily write cap (§11.5, §11.6).
		{"GET", "/api/sites/{siteId}/schedule-settings", policy.SchedulesRead, a.ScheduleSettings},
		{"PUT", "/api/sites/{siteId}/schedule-settings", policy.SiteSettings, a.PutScheduleSettings},

		// Content for scripts: articles and pages, changed with expectedRev.
		{"GET", "/api/sites/{siteId}/entries", policy.ContentRead, a.Entries},
		{"GET", "/api/sites/{siteId}/entries/{nodeId}", policy.ContentRead, a.Entry},
		{"PATCH", "/api/sites/{siteId}/entries/{nodeId}", policy.ContentWrite, a.PatchEntry},
		{"GET", "/api/sites/{siteId}/pages", policy.ContentRead, a.Pages},
		{"GET", "/api/sites/{siteId}/pages/{nodeId}", policy.ContentRead, a.Page},
		{"PATCH", "/api/sites/{siteId}/pages/{nodeId}", policy.ContentWrite, a.PatchPage},
	}
}

// MCPRoutes is the table of the MCP surface (RFC §12): one endpoint,
// Streamable HTTP, for agents with an agent key. No session is loaded, no
// cookie read; a request a browser says another origin sent is refused,
// and a body is at most mcp.MaxBody bytes. POST carries JSON-RPC, GET opens
// the session's event stream, DELETE ends the session.
func MCPRoutes(m *mcp.Handler) []Route {
	return []Route{
		{"POST", "/mcp", AgentKey, m.ServeHTTP},
		{"GET", "/mcp", AgentKey, m.ServeHTTP},
		{"DELETE", "/mcp", AgentKey, m.ServeHTTP},
	}
}

// OAuthRoutes is the table of OAuth's JSON endpoints for connectors that
// speak only OAuth (issue 38): metadata, client registration and the token
// endpoint. Anyone may call them, from any origin: no session is read, a
// body is at most oauth.MaxBody bytes, and a code becomes a token only
// with its PKCE verifier. The consent page is Studio's
// (/studio/oauth/authorize).
func OAuthRoutes(o *oauth.Handler) []Route {
	rows := []Route{
		{"GET", oauth.ResourceMetaPath, Anyone, o.ProtectedResource},
		{"GET", oauth.ResourceMetaPath + oauth.ResourcePath, Anyone, o.ProtectedResource},
		{"GET", oauth.AuthServerMetaPath, Anyone, o.AuthorizationServer},
		{"POST", oauth.RegisterPath, Anyone, o.Register},
		{"POST", oauth.TokenPath, Anyone, o.Token},
	}
	// A browser's client asks before each (CORS preflight).
	for _, rt := range slices.Clone(rows) {
		rows = append(rows, Route{"OPTIONS", rt.Pattern, Anyone, o.Preflight})
	}
	return rows
}

// PublicRoutes is the table of routes without a session: health, assets and
// the public site. None of them changes anything. who finds a signed-in
// caller for /health's details (nil: nobody is).
func PublicRoutes(sched *scheduler.Scheduler, p *site.Handler, who func(*http.Request) (engine.User, bool)) []Route {
	if who == nil {
		who = func(*http.Request) (engine.User, bool) { return engine.User{}, false }
	}
	return []Route{
		{"GET", "/health", Anyone, health(sched, who)},
		{"GET", "/static/*", Anyone, static.Handler().ServeHTTP},
		// The public site (RFC §7.2): every route below shows only what the
		// one gate helper lets through at the request's instant; the route
		// sweep (site/sweep_test.go) requests each of them around every gate.
		{"GET", "/", Anyone, p.Home},
		{"GET", "/posts", Anyone, p.Posts},
		{"GET", "/posts/{slug}", Anyone, p.Entry},
		{"GET", "/rss.xml", Anyone, p.RSS},
		{"GET", "/sitemap.xml", Anyone, p.Sitemap},
		{"GET", "/robots.txt", Anyone, p.Robots},
		{"GET", "/media/{slug}", Anyone, p.Media},
		// Signed preview links (§7.3): the working copy, gates ignored,
		// never stored.
		{"GET", "/preview/{token}", Anyone, p.Preview},
		{"GET", "/preview/{token}/media/{slug}", Anyone, p.PreviewMedia},
		{"GET", "/{slug}", Anyone, p.Page},
	}
}

// Option changes how New builds the handler.
type Option func(*options)

type options struct {
	csrfKey     []byte
	trusted     []netip.Prefix
	forceSecure bool
	origins     []string
	extraStudio func(*studio.Handler) []Route
	extraBodies map[string]studio.Body
	site        site.Options
	agentKeys   mcp.Keys
	stopper     func(stop func())
	// metrics, when set, time every request; with metricsToken, /metrics
	// is served (OperatorRoutes).
	metrics      *metrics.Metrics
	metricsToken string
}

// WithStopper hands register the function that writes what the handler
// still holds (the public site's last 404 counts) and stops its timers:
// the process calls it as it stops, before the database closes.
func WithStopper(register func(stop func())) Option { return func(o *options) { o.stopper = register } }

// WithAgentKeys authenticates /mcp's agent keys (MCPRoutes) with keys
// instead of the services' own agent keys (svc.Agents).
func WithAgentKeys(keys mcp.Keys) Option { return func(o *options) { o.agentKeys = keys } }

// WithCSRFKey sets the key that signs the CSRF tokens of people not signed
// in (studio.Handler.SetCSRFKey); without it, a random one per process.
func WithCSRFKey(key []byte) Option { return func(o *options) { o.csrfKey = key } }

// WithTrustedProxies names the proxies whose X-Forwarded-Proto is believed:
// a request from one of them that says "https" came over HTTPS.
func WithTrustedProxies(p []netip.Prefix) Option { return func(o *options) { o.trusted = p } }

// WithSecureCookies marks every cookie Secure whatever the request came
// over (Studio is only ever reached over HTTPS).
func WithSecureCookies() Option { return func(o *options) { o.forceSecure = true } }

// WithTrustedOrigins names origins (scheme://host[:port]) that Studio's
// forms and the API's session calls may come from besides the request's
// own host, e.g. the public URL when a proxy rewrites Host.
func WithTrustedOrigins(origins ...string) Option {
	return func(o *options) { o.origins = append(o.origins, origins...) }
}

// WithStudioRoutes adds rows (and their bodies) to the Studio table, as
// if they were in it: for tests of the table's own machinery.
func WithStudioRoutes(rows func(*studio.Handler) []Route, bodies map[string]studio.Body) Option {
	return func(o *options) { o.extraStudio, o.extraBodies = rows, bodies }
}

// WithPublicURL builds every absolute URL of the public site from base
// (--public-url), never from a request's Host header.
func WithPublicURL(base string) Option { return func(o *options) { o.site.PublicURL = base } }

// WithMetrics times every request into m and hears the scheduler's ticks;
// with a token, /metrics answers on this handler to whoever carries it.
func WithMetrics(m *metrics.Metrics, token string) Option {
	return func(o *options) { o.metrics, o.metricsToken = m, token }
}

// WithCDNMaxAge caps how long a CDN may keep a public page (--cdn-max-age).
func WithCDNMaxAge(d time.Duration) Option { return func(o *options) { o.site.CDNMaxAge = d } }

// New builds the one handler of the process.
func New(svc *services.Services, sessions *scs.SessionManager, log *slog.Logger, opts ...Option) http.Handler {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	s := studio.New(svc, sessions, log)
	if o.csrfKey != nil {
		s.SetCSRFKey(o.csrfKey)
	}
	r := chi.NewRouter()
	if o.metrics != nil {
		// Outermost: a request is timed whatever answers it.
		o.metrics.Observe(svc.Scheduler)
		r.Use(o.metrics.Middleware)
	}
	// HEAD is answered by every GET route, without its body (net/http
	// drops what a handler writes to a HEAD response). Every answer is
	// compressed as the request accepts, but one that a browser sends with
	// Studio's cookies from another site (compress: BREACH).
	r.Use(middleware.Recoverer, transport(o.trusted, o.forceSecure), securityHeaders, middleware.GetHead,
		compress(sessions.Cookie.Name, studio.CSRFCookie))
	rows := StudioRoutes(s)
	bodies := StudioBodies()
	if o.extraStudio != nil {
		rows = append(rows, o.extraStudio(s)...)
		maps.Copy(bodies, o.extraBodies)
	}
	r.Group(func(r chi.Router) {
		r.Use(sessions.LoadAndSave)
		for _, rt := range rows {
			key := rt.Method + " " + rt.Pattern
			prepare := s.Prepare(bodies[key])
			delete(bodies, key)
			if rt.Scope == Anyone {
				r.With(prepare).Method(rt.Method, rt.Pattern, rt.Handler)
				continue
			}
			// Each row answers under its site's prefix too (issue 15):
			// /studio/s/{siteId}/content is /studio/content on that site.
			// The same page without a site is the one the person was last
			// on (studio.Handler.Guard).
			h := s.Guard(mustScope(rt), rt.Handler)
			r.With(prepare).Method(rt.Method, rt.Pattern, h)
			r.With(prepare).Method(rt.Method, OnSite(rt.Pattern), h)
		}
	})
	for key := range bodies {
		panic("handlers: StudioBodies names no route: " + key)
	}
	a := api.New(svc, s.Session, log)
	for _, origin := range o.origins {
		if err := errors.Join(s.TrustOrigin(origin), a.TrustOrigin(origin)); err != nil {
			panic("handlers: trusted origin: " + err.Error())
		}
	}
	r.Group(func(r chi.Router) {
		// The session is loaded so a signed-in browser can call the API as
		// its person; a script's request carries no cookie and costs nothing.
		r.Use(sessions.LoadAndSave, backstop(svc.Scheduler))
		for _, rt := range APIRoutes(a) {
			if rt.Scope == DeployToken {
				r.Method(rt.Method, rt.Pattern, a.DeployGuard(rt.Handler))
				continue
			}
			r.Method(rt.Method, rt.Pattern, a.Guard(mustScope(rt), rt.Handler))
		}
	})
	keys := o.agentKeys
	if keys == nil && svc.Agents != nil {
		keys = svc.Agents
	}
	if keys != nil {
		m := mcp.New(svc, keys, log)
		if svc.OAuth != nil {
			m.AnnounceOAuth(func(r *http.Request) string { return oauth.ResourceMetadataURL(studio.Origin(r)) })
		}
		for _, origin := range o.origins {
			if err := m.TrustOrigin(origin); err != nil {
				panic("handlers: trusted origin: " + err.Error())
			}
		}
		for _, rt := range MCPRoutes(m) {
			if rt.Scope != AgentKey {
				panic("handlers: an MCP route takes an agent key: " + rt.Pattern)
			}
			r.Method(rt.Method, rt.Pattern, noStore(rt.Handler))
		}
	}
	if svc.OAuth != nil {
		for _, rt := range OAuthRoutes(oauth.New(svc.OAuth, studio.Origin, studio.ClientIP, log)) {
			if rt.Scope != Anyone {
				panic("handlers: OAuth's endpoints are open: " + rt.Pattern)
			}
			r.Method(rt.Method, rt.Pattern, rt.Handler)
		}
	}
	if svc.Jobs != nil {
		// feed-check renders the public site as visitors get it, through a
		// handler of its own that counts no 404s; the visitors' counts them
		// for broken-links.
		svc.Jobs.SetRenderer(site.New(svc.Engine, svc.Public, log, o.site))
		o.site.NotFounds = svc.Jobs
	}
	publicSite := site.New(svc.Engine, svc.Public, log, o.site)
	if o.stopper != nil {
		o.stopper(func() { publicSite.Close(context.Background()) })
	}
	for _, rt := range PublicRoutes(svc.Scheduler, publicSite, healthCaller(svc.Identity, sessions, s)) {
		if rt.Method != http.MethodGet || rt.Scope != Anyone {
			panic("handlers: public routes are read-only and open: " + rt.Pattern)
		}
		r.Method(rt.Method, rt.Pattern, rt.Handler)
	}
	// What no route answers is never stored either (§7.2: a 404 is no-store).
	// An address under /studio/ is Studio's own page, in the person's
	// language; under /api/ the plain answer; any other is the public
	// site's 404 page, counted for broken-links' top 404 paths.
	studioNotFound := sessions.LoadAndSave(s.Prepare(studio.Body{})(http.HandlerFunc(s.NotFound)))
	notFound := noStore(func(w http.ResponseWriter, r *http.Request) {
		if to, ok := withoutTrailingSlash(r); ok {
			http.Redirect(w, r, to, http.StatusMovedPermanently)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/studio/") {
			studioNotFound.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			http.NotFound(w, r)
			return
		}
		publicSite.NotFound(w, r)
	})
	r.NotFound(notFound)
	// The operator routes answer a stranger as if they did not exist: with
	// the 404 above, and with it for any other method too, not a 405.
	hidden := map[string]bool{}
	if o.metrics != nil && o.metricsToken != "" {
		for _, rt := range OperatorRoutes(o.metrics, o.metricsToken, notFound) {
			r.Method(rt.Method, rt.Pattern, rt.Handler)
			hidden[rt.Pattern] = true
		}
	}
	r.MethodNotAllowed(noStore(func(w http.ResponseWriter, r *http.Request) {
		if hidden[r.URL.Path] {
			notFound(w, r)
			return
		}
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
	}))
	return r
}

// withoutTrailingSlash is where a read of an address no route answers goes
// when it ends in a slash (/studio/, /posts/x/): the same address without
// it. Every such address is sent on, served or not, so the answer tells
// nothing about what exists. Leading slashes collapse to one and the path
// stays escaped, so the target is always this site's (never //host).
func withoutTrailingSlash(r *http.Request) (string, bool) {
	p := r.URL.EscapedPath()
	if r.Method != http.MethodGet && r.Method != http.MethodHead || len(p) < 2 || !strings.HasSuffix(p, "/") {
		return "", false
	}
	to := "/" + strings.Trim(p, "/")
	if r.URL.RawQuery != "" {
		to += "?" + r.URL.RawQuery
	}
	return to, true
}

// noStore marks a router's own answers uncacheable.
func noStore(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h(w, r)
	}
}

// OnSite is a Studio route's pattern under its site's prefix:
// "/studio/content/{id}" → "/studio/s/{siteId}/content/{id}".
func OnSite(pattern string) string {
	return strings.TrimSuffix(templates.SitePrefix, "/") + "/{siteId}" + strings.TrimPrefix(pattern, "/studio")
}

func mustScope(rt Route) policy.Scope {
	if rt.Scope == "" {
		panic("handlers: route without a scope: " + rt.Method + " " + rt.Pattern)
	}
	return rt.Scope
}

// contentSecurityPolicy lets pages run and style only what Studio serves
// from /static: no inline script, event handler or style, no eval, no
// other origin, no framing, forms posting only here.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		next.ServeHTTP(w, r)
	})
}

// health reports liveness and the scheduler's health (§8.7), as one engine
// use case (scheduler.Status) that the Scheduler card and the notifications
// share. Everyone gets status ("ok", or "unavailable" with 503 and the
// reason while the database file is gone or read-only) and a coarse
// healthy; a signed-in caller with schedules:read (a session or a bearer
// token) also gets the details: the heartbeat, the next wake-up (it tells
// when the next release is due, so nobody else learns it) and the releases
// of their own sites the scheduler has not taken, and how late the last
// tick found its work.
func health(sched *scheduler.Scheduler, who func(*http.Request) (engine.User, bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		st, err := sched.Status(r.Context(), "")
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			json.NewEncoder(w).Encode(map[string]any{"status": "unavailable", "healthy": false, "reason": "database unavailable"})
			return
		}
		out := map[string]any{"status": "ok", "healthy": st.Healthy()}
		code := http.StatusOK
		if !st.DatabaseOK() {
			out["status"], out["reason"], code = "unavailable", st.DatabaseProblem(), http.StatusServiceUnavailable
			if since := st.DatabaseProblemSince(); !since.IsZero() {
				out["since"] = since.UTC().Format(time.RFC3339)
			}
		}
		if u, ok := who(r); ok && scheduler.MaySeeStatusDetails(u) {
			// The releases named are of the caller's own sites only.
			if mine, err := sched.StatusOf(r.Context(), u); err == nil {
				st = mine
			}
			out["now"] = st.Now.Format(time.RFC3339)
			sched := map[string]any{"healthy": st.State() == scheduler.HealthRunning, "state": st.State(),
				"dueNotClaimed": wire.Stuck(st.DueNotClaimed), "pastLease": wire.Stuck(st.PastLease)}
			if hb := st.Scheduler.Beat; hb != nil {
				sched["heartbeatAt"] = hb.At.Format(time.RFC3339)
				sched["nextWakeAt"] = hb.NextWakeAt.Format(time.RFC3339)
				sched["trigger"] = hb.Trigger
				sched["lagSeconds"] = hb.LagSeconds // how late the oldest due item was at that tick (§8.7)
			}
			out["scheduler"] = sched
		}
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(out)
	}
}

// healthCaller finds who calls /health, which runs without the session
// middleware: the person of a bearer token, or of the live Studio session
// the request's cookie names (read, never written).
func healthCaller(people *identity.Identity, sessions *scs.SessionManager, s *studio.Handler) func(*http.Request) (engine.User, bool) {
	return func(r *http.Request) (engine.User, bool) {
		ctx := r.Context()
		if secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			u, err := people.TokenUser(ctx, strings.TrimSpace(secret))
			return u, err == nil
		}
		c, err := r.Cookie(sessions.Cookie.Name)
		if err != nil || c.Value == "" {
			return engine.User{}, false
		}
		if ctx, err = sessions.Load(ctx, c.Value); err != nil {
			return engine.User{}, false
		}
		u, _, err := s.Session(ctx)
		return u, err == nil
	}
}

// backstop gives a stalled scheduler a tick from an API request (§8.6), as
// Studio's pages do: beside the request, never delaying it.
func backstop(sched *scheduler.Scheduler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if sched != nil {
				sched.Nudge()
			}
			next.ServeHTTP(w, r)
		})
	}
}
