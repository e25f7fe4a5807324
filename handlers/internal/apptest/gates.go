package apptest

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"studio/engine/gates"
)

// Gate instants of these tests: tomorrow 09:00 and Friday 18:00 in Istanbul.
var (
	gateFrom  = time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC)
	GateUntil = time.Date(2026, 11, 6, 15, 0, 0, 0, time.UTC)
)

// NodeRev is a node's working-copy rev now.
func (a *App) NodeRev(t *testing.T, id string) int64 {
	t.Helper()
	d, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Rev
}

// EmbargoLive gives the live article an embargo until tomorrow 09:00, as
// the editor (published at once), and returns its lift URL and a valid lift
// form (the route table's tests post it).
func (a *App) EmbargoLive(t *testing.T) (string, url.Values) {
	t.Helper()
	if _, err := a.Gates.SetGates(context.Background(), a.Editor, gates.GateInput{SiteID: a.Site.ID, NodeID: a.Live.ID,
		ExpectedRev: a.NodeRev(t, a.Live.ID), From: gates.GateAt(gateFrom)}); err != nil {
		t.Fatal(err)
	}
	return "/studio/content/" + a.Live.ID + "/gates/lift",
		url.Values{"rev": {fmt.Sprint(a.NodeRev(t, a.Live.ID))}, "reason": {"The results are in."}}
}

func GateForm(rev int64, kv ...string) url.Values {
	f := url.Values{"rev": {fmt.Sprint(rev)}}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return f
}
