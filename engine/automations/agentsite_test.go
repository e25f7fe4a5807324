package automations_test

import (
	"context"
	"testing"

	"studio/engine"
	"studio/engine/policy"
)

// TestAgentSite: an agent key, an automation's or a person's, reaches
// its own site only (u.SiteID, where it was minted); any other site, one
// its owner is a member of too or one that does not exist, is forbidden,
// refused before anything is read.
func TestAgentSite(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	a := b.create(t, weekly())
	other, err := b.CreateSite(ctx, "Other Times", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	task := b.Editor
	task.Agent = &engine.AgentCall{KeyID: "key_task", Mode: policy.ModeManual, AutomationID: a.ID}
	person := b.Editor
	person.Agent = &engine.AgentCall{KeyID: "key_person", Mode: policy.ModeEdits}
	for _, u := range []engine.User{task, person} {
		if s, err := b.auto.AgentSite(ctx, u, b.Site.ID); err != nil || s.ID != b.Site.ID {
			t.Fatalf("its own site: %+v %v", s, err)
		}
		for _, id := range []string{other.ID, "site_nope", ""} {
			_, err := b.auto.AgentSite(ctx, u, id)
			if e, ok := engine.AsError(err); !ok || e.Code != engine.CodeForbidden {
				t.Fatalf("site %q for key %s: %v, want forbidden", id, u.Agent.KeyID, err)
			}
		}
	}
	// A person's call is no key's.
	if _, err := b.auto.AgentSite(ctx, b.Editor, b.Site.ID); err == nil {
		t.Fatal("a person's call passed as a key's")
	}
}
