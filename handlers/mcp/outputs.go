package mcp

import (
	"github.com/google/jsonschema-go/jsonschema"

	"studio/engine/calendar"
	"studio/engine/model/automation"
	"studio/handlers/wire"
)

// Every tool's answer declares its shape (its outputSchema), built from the
// wire types the API answers with, so that a model and its client know
// what structuredContent holds; the tests validate every answer they read
// against it (apptest.CallTool).

// outputOf is T's schema as JSON encodes T.
func outputOf[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic("mcp: output schema: " + err.Error())
	}
	return s
}

func object(required []string, props map[string]*jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

func arrayOf(items *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: items}
}

func scalar(typ string) *jsonschema.Schema { return &jsonschema.Schema{Type: typ} }

// siteOutput is siteJSON's shape.
func siteOutput() *jsonschema.Schema {
	return object([]string{"id", "name", "timeZone"}, map[string]*jsonschema.Schema{
		"id": scalar("string"), "name": scalar("string"), "timeZone": scalar("string"),
		"lang": scalar("string"), "publicUrl": scalar("string")})
}

// paged is a list of items under key, with the next page's cursor.
func paged(key string, items *jsonschema.Schema) *jsonschema.Schema {
	return object([]string{key}, map[string]*jsonschema.Schema{key: arrayOf(items), "nextCursor": scalar("string")})
}

// outputs are every tool's answer's shape; tool() refuses to register a
// tool without one.
var outputs = map[string]func() *jsonschema.Schema{
	"list_schedule":    outputOf[calendar.CalendarPage],
	"get_schedule":     outputOf[calendar.CalendarItem],
	"list_releases":    func() *jsonschema.Schema { return paged("releases", outputOf[wire.Release]()) },
	"get_release":      outputOf[wire.ReleaseView],
	"list_automations": func() *jsonschema.Schema { return paged("automations", outputOf[wire.Automation]()) },
	"list_runs":        func() *jsonschema.Schema { return paged("runs", outputOf[wire.Run]()) },
	"get_run":          outputOf[wire.RunDetail],
	"get_mode": func() *jsonschema.Schema {
		return object([]string{"mode", "scopes", "keyId", "site", "sitePaused"}, map[string]*jsonschema.Schema{
			"mode": scalar("string"), "scopes": arrayOf(scalar("string")), "keyId": scalar("string"), "site": siteOutput(),
			"sitePaused": scalar("boolean"), "automationId": scalar("string"), "tainted": scalar("boolean"),
			"run": object([]string{"runId", "endsAt", "budgetLeft", "tainted"}, map[string]*jsonschema.Schema{
				"runId": scalar("string"), "endsAt": scalar("string"), "budgetLeft": outputOf[automation.Left](),
				"tainted": scalar("boolean")}),
		})
	},
	"begin_run": func() *jsonschema.Schema {
		return object([]string{"runId", "automationId", "site", "instructions", "mode", "tools", "budget", "window", "endsAt", "tainted", "rules"},
			map[string]*jsonschema.Schema{
				"runId": scalar("string"), "automationId": scalar("string"), "site": siteOutput(), "instructions": scalar("string"),
				"mode": scalar("string"), "tools": arrayOf(scalar("string")), "budget": outputOf[automation.Budget](),
				"window": outputOf[automation.RunWindow](), "endsAt": scalar("string"), "tainted": scalar("boolean"),
				"rules": arrayOf(scalar("string"))})
	},
	"end_run": func() *jsonschema.Schema {
		return object([]string{"run"}, map[string]*jsonschema.Schema{"run": outputOf[wire.Run]()})
	},
	"pause_automation": func() *jsonschema.Schema {
		return object([]string{"automation"}, map[string]*jsonschema.Schema{"automation": outputOf[wire.Automation]()})
	},
	"list_content": func() *jsonschema.Schema { return paged("content", outputOf[wire.Node]()) },
	"get_content":  outputOf[wire.Node],
	"describe_site": func() *jsonschema.Schema {
		field := object([]string{"name", "about"}, map[string]*jsonschema.Schema{"name": scalar("string"), "about": scalar("string")})
		kind := object([]string{"kind", "about", "fields"}, map[string]*jsonschema.Schema{
			"kind": scalar("string"), "about": scalar("string"), "fields": arrayOf(field)})
		return object([]string{"site", "kinds", "statuses"}, map[string]*jsonschema.Schema{
			"site": siteOutput(), "kinds": arrayOf(kind), "statuses": arrayOf(scalar("string"))})
	},
	"propose_release": func() *jsonschema.Schema {
		return object([]string{"release", "closureAdded"}, map[string]*jsonschema.Schema{
			"release": outputOf[wire.ReleaseView](), "closureAdded": arrayOf(scalar("string"))})
	},
	"schedule_release": outputOf[wire.Schedule],
	"reschedule":       outputOf[wire.Schedule],
	"cancel_schedule": func() *jsonschema.Schema {
		return object([]string{"release"}, map[string]*jsonschema.Schema{"release": outputOf[wire.Release]()})
	},
	"set_embargo":        outputOf[wire.Gate],
	"lift_embargo":       outputOf[wire.Gate],
	"schedule_unpublish": outputOf[wire.Gate],
	"save_draft": func() *jsonschema.Schema {
		return object([]string{"node"}, map[string]*jsonschema.Schema{"node": outputOf[wire.Node]()})
	},
	"broken_links": func() *jsonschema.Schema {
		finding := object([]string{"code", "nodeId", "field", "target", "detail", "hits"}, map[string]*jsonschema.Schema{
			"code": scalar("string"), "nodeId": scalar("string"), "field": scalar("string"), "target": scalar("string"),
			"detail": scalar("string"), "hits": scalar("integer")})
		return object([]string{"untrusted", "findings"}, map[string]*jsonschema.Schema{
			"untrusted": scalar("boolean"), "findings": arrayOf(finding), "runId": scalar("string"), "at": scalar("string")})
	},
}

// outputFor is the tool's answer's shape.
func outputFor(name string) *jsonschema.Schema {
	f, ok := outputs[name]
	if !ok {
		panic("mcp: no output schema for tool " + name)
	}
	return f()
}
