package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/handlers/api/schema"
)

// A release in every state and with every outcome, as the engine records
// it (with what it keeps beyond the contract: a canceled run's reason, an
// on-approval release's fallback minute, a Publish now's person), answers
// in RFC §4.2's shape.
func TestReleaseJSONEveryStateValidates(t *testing.T) {
	schemas, err := schema.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	later := at.Add(90 * time.Minute)
	editor := release.Actor{Kind: "person", ID: "user_Elif0000", Name: "Elif Editor"}
	hash := "rl1:" + strings.Repeat("a", 64)
	item := release.Item{Op: release.OpSet, NodeID: "ent_Election", NodeKind: release.KindContentEntry,
		Target: &release.Version{Rev: 2, Hash: "sha256-t"}, Base: &release.Version{Rev: 1, Hash: "sha256-b"},
		Deps: []string{"ast_Chart1"}, RestoreRev: 1, AddedBecause: ""}
	removal := release.Item{Op: release.OpRemove, NodeID: "pag_Old000", NodeKind: release.KindPage,
		Base: &release.Version{Rev: 3, Hash: "sha256-o"}}
	closure := release.Item{Op: release.OpSet, NodeID: "ast_Chart1", NodeKind: release.KindAsset,
		Target: &release.Version{Rev: 1, Hash: "sha256-a"}, AddedBecause: "ent_Election"}
	wall := &release.When{Kind: "at", At: at, TimeZone: "Europe/Istanbul", LocalTime: "2026-11-02T09:00"}
	approved := &release.Approval{Kind: "person", By: editor, At: at.Add(-time.Hour), ExecuteAt: &at, ApprovalID: "apr_Request1"}
	late := int64(5400)
	zero := int64(0)
	base := func(state release.State) release.Release {
		return release.Release{SchemaVersion: 1, ID: "rel_Release01", SiteID: "site_Demo0001", Title: "Election night live",
			Items: []release.Item{item, closure}, When: wall, State: state, Hash: hash, CreatedBy: editor,
			CreatedAt: at.Add(-2 * time.Hour), UpdatedAt: at, Rev: 3,
			ClosureAdded: release.Closure([]release.Item{item, closure})}
	}
	with := func(r release.Release, f func(*release.Release)) release.Release { f(&r); return r }
	cases := map[string]release.Release{
		"draft":                       with(base(release.StateDraft), func(r *release.Release) { r.When = nil; r.Title = "" }),
		"awaiting approval at a time": base(release.StateAwaitingApproval),
		"awaiting approval, on approval": with(base(release.StateAwaitingApproval), func(r *release.Release) {
			r.When = &release.When{Kind: "on-approval", TimeZone: "Europe/Istanbul"}
		}),
		"scheduled": with(base(release.StateScheduled), func(r *release.Release) { r.Approval = approved }),
		"scheduled on approval, with the ticker's fallback minute": with(base(release.StateScheduled), func(r *release.Release) {
			r.When = &release.When{Kind: "on-approval", At: at.Add(time.Minute), TimeZone: "Europe/Istanbul"}
			r.Approval = approved
		}),
		"a draft left with a time kind and no instant": with(base(release.StateDraft), func(r *release.Release) {
			r.When = &release.When{Kind: "at", TimeZone: "Europe/Istanbul"}
		}),
		"site without a zone": with(base(release.StateScheduled), func(r *release.Release) {
			r.When = &release.When{Kind: "at", At: at}
			r.Approval = approved
		}),
		"running": with(base(release.StateRunning), func(r *release.Release) { r.Approval = approved }),
		"published by the ticker": with(base(release.StatePublished), func(r *release.Release) {
			r.Approval = approved
			r.Items = append(r.Items, removal)
			r.Outcome = &release.Outcome{Kind: "published", RunID: "run_51BQW6G4D5JP97RJ00GG", At: at,
				SnapshotID: "snp_New00001", BaseSnapshotID: "snp_Old00001", LatenessSeconds: &zero, Purge: "none"}
		}),
		"published now by a person": with(base(release.StatePublished), func(r *release.Release) {
			r.Approval = approved
			r.Outcome = &release.Outcome{Kind: "published", RunID: "run_51BQW6G4D5JP97RJ00GG", At: later,
				SnapshotID: "snp_New00001", BaseSnapshotID: "snp_Old00001", LatenessSeconds: &late, Purge: "none", By: &editor}
		}),
		"conflict": with(base(release.StateConflict), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "conflict", RunID: "run_51BQW6G4D5JP97RJ00GG", At: at,
				Conflicts: []release.Conflict{{NodeID: "ent_Election", Expected: item.Base, Found: &release.Version{Rev: 4, Hash: "sha256-l"}}}}
		}),
		"missed": with(base(release.StateMissed), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "missed", At: later, LatenessSeconds: &late}
		}),
		"expired without approval": with(base(release.StateExpired), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "expired", At: at, Reason: "unapproved"}
		}),
		"expired at its run": with(base(release.StateExpired), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "expired", At: at, RunID: "run_51BQW6G4D5JP97RJ00GG", Reason: "approval_lost"}
		}),
		"failed with a missing dependency": with(base(release.StateFailed), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "failed", At: at, RunID: "run_51BQW6G4D5JP97RJ00GG", Code: "dependency_missing", Message: "ast_Chart1"}
		}),
		"failed on a taken address": with(base(release.StateFailed), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "failed", At: at, RunID: "run_51BQW6G4D5JP97RJ00GG", Code: releases.CodeSlugTaken, Message: "/posts/welcome"}
		}),
		"canceled by a person": with(base(release.StateCanceled), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "canceled", At: at, By: &editor}
		}),
		"canceled by the scheduler, a node gone": with(base(release.StateCanceled), func(r *release.Release) {
			r.Outcome = &release.Outcome{Kind: "canceled", At: at, RunID: "run_51BQW6G4D5JP97RJ00GG", By: &engine.Scheduler,
				Reason: "node_gone", Message: "ent_Election"}
		}),
	}
	for _, s := range release.States {
		found := false
		for _, r := range cases {
			found = found || r.State == s
		}
		if !found {
			t.Errorf("no case in state %s", s)
		}
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(ReleaseOf(r))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := schema.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := schemas.Release.Validate(doc); err != nil {
				t.Fatalf("%s\n%v", data, err)
			}
			if strings.Contains(string(data), "0001-01-01") {
				t.Errorf("a zero instant: %s", data)
			}
		})
	}

	// What the contract has no field for is kept where it allows: metadata.
	data, _ := json.Marshal(ReleaseOf(cases["canceled by the scheduler, a node gone"]))
	var got struct {
		Outcome  map[string]any    `json:"outcome"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Metadata[MetaOutcomeReason] != "node_gone" || got.Metadata[MetaOutcomeMessage] != "ent_Election" ||
		got.Metadata[MetaOutcomeRunID] == "" || len(got.Outcome) != 3 {
		t.Errorf("canceled: %s", data)
	}
	data, _ = json.Marshal(ReleaseOf(cases["failed on a taken address"]))
	if !strings.Contains(string(data), `"code":"invalid_snapshot"`) || !strings.Contains(string(data), `"`+MetaOutcomeCode+`":"slug_taken"`) {
		t.Errorf("slug taken: %s", data)
	}
}

// The schema has teeth: the engine's record as it was answered before, and
// a few of §4.2's invalid fixtures, are refused.
func TestReleaseSchemaRefuses(t *testing.T) {
	schemas, err := schema.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	valid := `{"schemaVersion":1,"id":"rel_Release01","siteId":"site_Demo0001","items":[{"kind":"set","nodeId":"ent_Election","nodeKind":"contentEntry","target":{"rev":2,"hash":"sha256-t"}}],"state":"draft","hash":"rl1:` + strings.Repeat("a", 64) + `","createdBy":{"kind":"person","id":"user_Elif0000"},"createdAt":"2026-11-02T06:00:00Z","updatedAt":"2026-11-02T06:00:00Z","rev":1}`
	cases := map[string]func(map[string]any){
		"valid": func(map[string]any) {},
		"on-approval with the zero instant": func(m map[string]any) {
			m["when"] = map[string]any{"kind": "on-approval", "at": "0001-01-01T00:00:00Z"}
		},
		"canceled with a reason": func(m map[string]any) {
			m["state"] = "canceled"
			m["outcome"] = map[string]any{"kind": "canceled", "at": "2026-11-02T06:00:00Z", "reason": "node_gone",
				"by": map[string]any{"kind": "system", "id": "sys_scheduler"}}
		},
		"expired with a run": func(m map[string]any) {
			m["outcome"] = map[string]any{"kind": "expired", "at": "2026-11-02T06:00:00Z", "reason": "unapproved", "runId": "run_51BQW6G4D5JP97RJ00GG"}
		},
		"site-node-item": func(m map[string]any) { m["items"].([]any)[0].(map[string]any)["nodeKind"] = "site" },
		"approved-by-an-agent": func(m map[string]any) {
			m["approval"] = map[string]any{"kind": "person", "by": map[string]any{"id": "agt_Bot00001"}, "at": "2026-11-02T06:00:00Z"}
		},
		"hash-unknown-version": func(m map[string]any) { m["hash"] = "rl2:" + strings.Repeat("a", 64) },
		"empty-items":          func(m map[string]any) { m["items"] = []any{} },
		"remove-with-target":   func(m map[string]any) { m["items"].([]any)[0].(map[string]any)["kind"] = "remove" },
		"unknown-state":        func(m map[string]any) { m["state"] = "held" },
		"local-time-with-seconds": func(m map[string]any) {
			m["when"] = map[string]any{"kind": "at", "at": "2026-11-02T06:00:00Z", "timeZone": "UTC", "localTime": "2026-11-02T09:00:00"}
		},
		"at-without-time-zone": func(m map[string]any) { m["when"] = map[string]any{"kind": "at", "at": "2026-11-02T06:00:00Z"} },
		"closure-in-a-release": func(m map[string]any) { m["closureAdded"] = []any{} },
		"title-with-newline":   func(m map[string]any) { m["title"] = "two\nlines" },
		"id-wrong-prefix":      func(m map[string]any) { m["id"] = "aut_Release01" },
		"missing-hash":         func(m map[string]any) { delete(m, "hash") },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(valid), &m); err != nil {
				t.Fatal(err)
			}
			edit(m)
			data, _ := json.Marshal(m)
			doc, _ := schema.Decode(data)
			err := schemas.Release.Validate(doc)
			if (err == nil) != (name == "valid") {
				t.Fatalf("%s: valid = %v: %v", data, err == nil, err)
			}
		})
	}
}
