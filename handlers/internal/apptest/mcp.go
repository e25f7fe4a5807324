package apptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/handlers/api/schema"
)

// AgentTask creates the Editor's daily agent task (from 3 November, 09:00)
// whose key holds scopes, in windows of windowMinutes; its key's secret is
// task.NewKey.Secret.
func (a *App) AgentTask(t *testing.T, name string, modeCap policy.Mode, windowMinutes int, budget *automation.Budget, scopes ...policy.Scope) automations.Automation {
	t.Helper()
	no := false
	task, err := a.Automations.Create(context.Background(), a.Editor, a.Site.ID, automations.Input{Name: name, Preset: "daily",
		Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Do the desk's work.", ModeCap: modeCap,
			ReadsUntrustedText: &no, WindowMinutes: windowMinutes, Budget: budget, Scopes: scopes}})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// FakeKeys stands in for engine/agents' keys: each secret is a real user of
// the fixture calling through an agent key, with narrowed scopes.
type FakeKeys map[string]engine.User

func (k FakeKeys) Authenticate(_ context.Context, secret string) (engine.User, error) {
	u, ok := k[secret]
	if !ok {
		return engine.User{}, engine.ErrNotFound
	}
	return u, nil
}

// MCPFixture is the app with a scheduled release, a gate, an automation
// with a run and content, served with /mcp.
type MCPFixture struct {
	*App
	Base    string
	Rel     release.Release
	Auto    automations.Automation
	Run     automations.Run
	Task    automations.Automation // an agent task with its run open
	TaskRun string
	OtherID string // a second site
	Keys    FakeKeys
}

// Bearer adds the key's secret to every request.
type Bearer struct {
	Secret string
	header http.Header
}

func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.Secret != "" {
		r.Header.Set("Authorization", "Bearer "+b.Secret)
	}
	for k, v := range b.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Connect is the go-sdk client connected to /mcp with secret.
func (f *MCPFixture) Connect(t *testing.T, secret string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: f.Base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: Bearer{Secret: secret}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// CallTool calls name with args and decodes its structured answer.
func CallTool(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) (map[string]any, *sdk.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.Unmarshal(raw, &out)
	checkToolReleases(t, name, raw)
	if !res.IsError {
		checkToolOutput(t, s, name, raw)
	}
	return out, res
}

// outputSchemas are each session's tools' output schemas, compiled.
var outputSchemas sync.Map // *sdk.ClientSession → map[string]*jsonschema.Schema

// listedTools and checkedTools are the tools a server listed and those
// whose answers were checked (MainCheckingTools compares them).
var listedTools, checkedTools sync.Map // name → true

// checkToolOutput validates a tool's answer against the outputSchema the
// server lists for it, with a validator the project did not write: every
// answer any MCP test reads is checked, so a shape that drifts from its
// declaration fails the test that saw it.
func checkToolOutput(t *testing.T, s *sdk.ClientSession, name string, raw []byte) {
	t.Helper()
	v, ok := outputSchemas.Load(s)
	if !ok {
		list, err := s.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		compiled := map[string]*jsonschema.Schema{}
		for _, tl := range list.Tools {
			if tl.OutputSchema == nil {
				t.Fatalf("%s has no outputSchema", tl.Name)
			}
			text, _ := json.Marshal(tl.OutputSchema)
			doc, err := schema.Decode(text)
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			url := "urn:studio:mcp:" + tl.Name
			if err := c.AddResource(url, doc); err != nil {
				t.Fatalf("%s's outputSchema: %v", tl.Name, err)
			}
			if compiled[tl.Name], err = c.Compile(url); err != nil {
				t.Fatalf("%s's outputSchema does not compile: %v", tl.Name, err)
			}
			listedTools.Store(tl.Name, true)
		}
		v, _ = outputSchemas.LoadOrStore(s, compiled)
	}
	sch := v.(map[string]*jsonschema.Schema)[name]
	if sch == nil {
		return // not a tool the server lists: the call was refused
	}
	doc, err := schema.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("%s's answer does not fit its outputSchema: %v\n%s", name, err, raw)
		return
	}
	checkedTools.Store(name, true)
}

// compiledSchemas are release.schema.json's, compiled once for every MCP
// answer the tests read.
var compiledSchemas = sync.OnceValues(schema.Compiled)

// checkToolReleases validates every release in a tool's answer against
// RFC §4.2's schema, as checkReleases does for the API's: get_release's
// answer and propose_release's release are ReleaseViews (as the API's
// read and its new draft), every other release is checked where it sits.
func checkToolReleases(t *testing.T, tool string, raw []byte) {
	t.Helper()
	schemas, err := compiledSchemas()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := schema.Decode(raw)
	if err != nil {
		t.Fatalf("%s: answer is not JSON: %v", tool, err)
	}
	check := func(sch *jsonschema.Schema, v any) {
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: a release not in the §4.2 shape:\n%s\n%v", tool, Excerpt(string(raw)), err)
		}
	}
	top, _ := doc.(map[string]any)
	switch {
	case top == nil || top["error"] != nil:
	case tool == "get_release":
		check(schemas.View, top)
		return
	case tool == "propose_release":
		check(schemas.View, top["release"])
		return
	}
	walkReleases(doc, false, func(v any) { check(schemas.Answer, v) })
}

// ToolError asserts res is a tool error with code, and returns its message.
func ToolError(t *testing.T, what string, out map[string]any, res *sdk.CallToolResult, code string) string {
	t.Helper()
	e, _ := out["error"].(map[string]any)
	if !res.IsError || e == nil || e["code"] != code {
		t.Fatalf("%s: want tool error %s, got isError=%v %v", what, code, res.IsError, out)
	}
	msg, _ := e["message"].(string)
	if msg == "" || strings.HasPrefix(msg, "error.") {
		t.Fatalf("%s: no sentence: %q", what, msg)
	}
	return msg
}

// FingerprintBut is the fingerprint without the audit count.
func (f *MCPFixture) FingerprintBut(t *testing.T) string {
	t.Helper()
	var others int
	if err := f.Store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action != 'mcp.tool'`).Scan(&others); err != nil {
		t.Fatal(err)
	}
	audit := regexp.MustCompile(`\d+ audit`)
	return audit.ReplaceAllString(f.Fingerprint(t)+" | "+f.AutFingerprint(t), "") + fmt.Sprintf(" %d other audit rows", others)
}

func (f *MCPFixture) AuditRows(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.Store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action = 'mcp.tool'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// RunAuditIDs are the ids of a run's audit rows, oldest first, as JSON
// numbers print.
func (f *MCPFixture) RunAuditIDs(t *testing.T, runID string) []any {
	t.Helper()
	rows, err := f.Store.DB().Query(`SELECT id FROM audit WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []any{}
	for rows.Next() {
		var id float64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// OkTool calls a tool that must answer without a refusal.
func OkTool(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	out, res := CallTool(t, s, name, args)
	if res.IsError {
		t.Fatalf("%s: refused: %v", name, out)
	}
	return out
}

// TickAt moves the clock to at and runs what is due.
func (a *App) TickAt(t *testing.T, at time.Time) {
	t.Helper()
	a.Clock.Set(at)
	if _, err := a.Scheduler.RunDue(context.Background(), "manual"); err != nil {
		t.Fatal(err)
	}
}

// MCPArgs are arguments for a tool, made from its input schema as the
// server lists it, so that a tool added later is swept too: every required
// property gets a value of its type, and every property that names a thing
// gets Zeta's thing of that kind (ids that site A's key must never reach).
func (z Zeta) MCPArgs(schema any, siteID string) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type  any   `json:"type"`
			Enum  []any `json:"enum"`
			Items *struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	raw, _ := json.Marshal(schema)
	json.Unmarshal(raw, &s)
	things := map[string]any{"siteId": siteID, "releaseId": z.Release, "nodeId": z.Article.ID, "automationId": z.Automation,
		"runId": z.Run, "approvalId": z.Request, "id": z.Release, "nodeIds": []string{z.Article.ID, z.Draft.ID}}
	out := map[string]any{}
	for name, p := range s.Properties {
		if v, ok := things[name]; ok {
			out[name] = v
			continue
		}
		if !slices.Contains(s.Required, name) {
			continue
		}
		switch {
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case name == "when":
			out[name] = map[string]any{"at": "2026-11-20T09:00:00Z"}
		case name == "from" || name == "at":
			out[name] = "2026-11-01T00:00:00Z"
		case name == "to":
			out[name] = "2026-11-30T00:00:00Z"
		case p.Type == "integer" || p.Type == "number":
			out[name] = 1
		case p.Type == "array":
			if p.Items != nil && len(p.Items.Enum) > 0 {
				out[name] = []any{p.Items.Enum[0]}
			} else {
				out[name] = []any{"x"}
			}
		default:
			out[name] = "Checked by the sweep"
		}
	}
	return out
}

// AgentKeysOfA are the agent keys the tenancy sweep calls /mcp with: a
// person's key minted on A in auto mode with every scope an Editor's key
// may hold (so that §12's gate lets every tool through to the site check),
// by an Editor of A who is an Editor of Zeta too; and A's agent task's own
// key inside its open run.
func AgentKeysOfA(t *testing.T, a *App, z Zeta) map[string]string {
	t.Helper()
	ctx := context.Background()
	if err := a.Store.AddMember(ctx, z.Site.ID, a.Editor.ID, policy.Editor, Start); err != nil {
		t.Fatal(err)
	}
	scopes := agents.OfferedScopes(policy.Editor)
	_, person, err := a.Agents.Mint(ctx, a.Editor, a.Site.ID, agents.KeyInput{Name: "Desk", Mode: policy.ModeAuto, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	budget := automation.DefaultBudget
	budget.MaxToolCalls = 500 // the sweep's calls, each with its get_mode
	task := a.AgentTask(t, "A's planner", policy.ModeEdits, 60, &budget, scopes...)
	if _, _, err := a.Automations.RunNow(ctx, a.Editor, a.Site.ID, task.ID); err != nil {
		t.Fatal(err)
	}
	u, err := a.Agents.Authenticate(ctx, task.NewKey.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Automations.BeginRun(ctx, u, task.ID); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"person's key": person, "agent task's key": task.NewKey.Secret}
}
