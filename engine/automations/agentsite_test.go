package automations_test

import (
	"context"
	"errors"
	"testing"

	"studio/engine"
	"studio/engine/policy"
)

// TestAgentSite: an automation's key reaches its automation's site only;
// a person's key (no automation) every site its owner reaches; an unknown
// site is not found for both.
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
	if s, err := b.auto.AgentSite(ctx, task, b.Site.ID); err != nil || s.ID != b.Site.ID {
		t.Fatalf("its own site: %+v %v", s, err)
	}
	if _, err := b.auto.AgentSite(ctx, task, other.ID); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("another site for an automation's key: %v", err)
	}
	if s, err := b.auto.AgentSite(ctx, person, other.ID); err != nil || s.ID != other.ID {
		t.Fatalf("another site for a person's key: %+v %v", s, err)
	}
	for _, u := range []engine.User{task, person} {
		if _, err := b.auto.AgentSite(ctx, u, "site_nope"); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("no such site: %v", err)
		}
	}
}
