// Package wire holds the JSON shapes the JSON API (handlers/api) and the MCP
// endpoint (handlers/mcp) both answer, and their builders from the engine's
// views: a release in RFC §4.2's shape and §12's ReleaseView, a page or an
// entry, schedule_release's and a gate change's answers, an automation and a
// run (§4.3, §4.4), and §12's when as both surfaces read it. Neither surface
// owns them, so a tool answers exactly what the matching API route answers
// (§12's shapes are §13's). Builders only copy and rename what a use case
// returned: they call no engine, and decide nothing.
package wire
