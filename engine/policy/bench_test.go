package policy_test

import (
	"testing"

	"studio/engine/policy"
)

// BenchmarkToolVerdict is the per-call policy path of an MCP call: look up
// the tool, authorize a narrowed key, decide the verdict.
func BenchmarkToolVerdict(b *testing.B) {
	key := []policy.Scope{"schedules:read", "schedules:write", "releases:publish", "content:write"}
	b.ReportAllocs()
	for b.Loop() {
		spec, _ := policy.Tool("schedule_release")
		held := policy.Narrow(key, policy.Author)
		if spec.Authorize(held, false) == policy.LevelNone {
			b.Fatal("refused")
		}
		if spec.Verdict(policy.ModeAuto, "", true, false) != policy.LowRiskInWindow {
			b.Fatal("verdict")
		}
	}
}

func BenchmarkHas(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range policy.Roles {
			policy.Has(r, policy.ReleasesPublish)
		}
	}
}
