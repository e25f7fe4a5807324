package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/store"
)

// TestStoppedAndKilledTickersHoldNoSiteProcess is issue 10 item 2 with real
// processes. Two sites each have three releases, a minute apart, the first
// due now. One `schedules run-due` claims the first release of one site and
// is frozen there with SIGSTOP (the binary's test hook stops it between the
// claim and the effect); another claims the first of the other site and is
// killed with SIGKILL at that point. A `serve` process then publishes every
// release: the two taken over when their leases end, the others within a
// minute of their time, each site in time order. The frozen process, once
// continued, publishes nothing twice. Exactly once is read from the database.
func TestStoppedAndKilledTickersHoldNoSiteProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	ctx := context.Background()
	data, st := seededData(t, bin)

	// The releases are made on a clock a minute behind the real one, so the
	// first, at the real clock's current minute, is due at once.
	minute := time.Now().UTC().Truncate(time.Minute)
	clock := fakeclock.New(minute.Add(-time.Minute))
	eng := releases.New(engine.New(st, clock, nil), st)
	editor, _, err := st.UserByEmail(ctx, "editor@demo.test")
	if err != nil {
		t.Fatal(err)
	}
	sites, err := eng.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := eng.CreateSite(ctx, "Second Gazette", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddMember(ctx, second.ID, editor.ID, policy.Editor, clock.Now()); err != nil {
		t.Fatal(err)
	}
	bySite := map[string][]string{} // site → its releases in time order
	for _, site := range []engine.Site{sites[0], second} {
		loc, _ := localtime.LoadZone(site.TimeZone)
		editor.SiteID = site.ID // an Editor on both
		for i := range 3 {
			n, err := nodes.New(eng, st).CreateNode(ctx, editor, site.ID, release.KindContentEntry,
				content.Body{Title: fmt.Sprintf("Lease test %d", i), Slug: fmt.Sprintf("lease-%d", i), Status: content.StatusDraft})
			if err != nil {
				t.Fatal(err)
			}
			at := minute.Add(time.Duration(i) * time.Minute).In(loc)
			r, err := eng.ScheduleNode(ctx, editor, releases.ScheduleInput{SiteID: site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
				Date: at.Format("2006-01-02"), Time: at.Format("15:04")})
			if err != nil {
				t.Fatal(err)
			}
			bySite[site.ID] = append(bySite[site.ID], r.ID)
		}
	}

	frozen, frozenID := claimAndStop(t, bin, data)
	killed, killedID := claimAndStop(t, bin, data)
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Wait()
	firsts := map[string]bool{bySite[sites[0].ID][0]: true, bySite[second.ID][0]: true}
	if !firsts[frozenID] || !firsts[killedID] || frozenID == killedID {
		t.Fatalf("the stopped processes claimed %s and %s, want the first release of each site", frozenID, killedID)
	}
	for _, id := range []string{frozenID, killedID} {
		if r, err := eng.Release(ctx, engine.Reader(releaseSite(bySite, id)), releaseSite(bySite, id), id); err != nil || r.State != release.StateRunning {
			t.Fatalf("%s after its claim: %s %v, want running", id, r.State, err)
		}
	}

	// Another process publishes everything while the frozen one is stopped.
	_, _, stop := serveProcess(t, bin, data)
	deadline := minute.Add(3*time.Minute + 30*time.Second)
	for !allPublished(t, eng, bySite) {
		if time.Now().After(deadline) {
			t.Fatalf("not all releases were published by %s: %v", deadline.Format(time.TimeOnly), states(t, eng, bySite))
		}
		time.Sleep(500 * time.Millisecond)
	}
	checkPublishedOnce(t, eng, st, bySite, frozenID, killedID)

	// The frozen process goes on: its lease is gone, so it publishes nothing.
	if err := frozen.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- frozen.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the continued process failed: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the continued process did not finish")
	}
	if err := stop(); err != nil {
		t.Errorf("serve did not stop cleanly: %v", err)
	}
	checkPublishedOnce(t, eng, st, bySite, frozenID, killedID)
}

// claimAndStop starts `schedules run-due` with the stop-after-claim hook and
// returns it once it has claimed a release and stopped.
func claimAndStop(t *testing.T, bin, data string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "schedules", "run-due", "--data", data)
	cmd.Env = append(os.Environ(), stopAfterClaimEnv+"=1")
	ownProcessGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	claimed := make(chan string, 1)
	var said strings.Builder // the rest of its stderr, to say why it claimed nothing
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "claimed "); ok {
				claimed <- id
				continue
			}
			said.WriteString(sc.Text() + "\n")
		}
		close(claimed)
	}()
	var id string
	select {
	case id = <-claimed:
	case <-time.After(30 * time.Second):
		t.Fatal("run-due claimed nothing")
	}
	if id == "" {
		t.Fatalf("run-due ended without claiming (%v):\n%s", cmd.Wait(), said.String())
	}
	// The process stops itself right after saying so: wait until it has.
	for i := 0; ; i++ {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "T" {
			break
		}
		if i == 300 {
			t.Fatal("run-due did not stop after its claim")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd, id
}

func releaseSite(releases map[string][]string, id string) string {
	for site, ids := range releases {
		for _, r := range ids {
			if r == id {
				return site
			}
		}
	}
	return ""
}

func states(t *testing.T, eng *releases.Releases, bySite map[string][]string) map[string]release.State {
	t.Helper()
	out := map[string]release.State{}
	for site, ids := range bySite {
		for _, id := range ids {
			r, err := eng.Release(context.Background(), engine.Reader(site), site, id)
			if err != nil {
				t.Fatal(err)
			}
			out[id] = r.State
		}
	}
	return out
}

func allPublished(t *testing.T, eng *releases.Releases, bySite map[string][]string) bool {
	t.Helper()
	for _, s := range states(t, eng, bySite) {
		if s != release.StatePublished {
			return false
		}
	}
	return true
}

// checkPublishedOnce asserts on the database that every release is
// published exactly once, each site's in time order, and every release but
// the two whose tickers were stopped within a minute of its time.
func checkPublishedOnce(t *testing.T, eng *releases.Releases, st *store.Store, bySite map[string][]string, stopped ...string) {
	t.Helper()
	for site, ids := range bySite {
		var rs []releases.ReleaseRow
		for _, id := range ids {
			if state := checkOnce(t, eng, st, site, id); state != release.StatePublished {
				t.Fatalf("%s is %s", id, state)
			}
			r, err := eng.Release(context.Background(), engine.Reader(site), site, id)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
			late := *r.Outcome.LatenessSeconds
			t.Logf("%s: published %d s late", id, late)
			if id != stopped[0] && id != stopped[1] && late >= 60 {
				t.Errorf("%s was published %d s late, want within a minute of its time", id, late)
			}
		}
		checkChain(t, rs)
	}
}

// checkChain fails unless each of a site's published releases, in the
// order they should have run, was published on the snapshot the one before
// it made: proof of their order that equal timestamps cannot blur.
func checkChain(t *testing.T, rs []releases.ReleaseRow) {
	t.Helper()
	for i := 1; i < len(rs); i++ {
		if base, before := rs[i].Outcome.BaseSnapshotID, rs[i-1].Outcome.SnapshotID; base != before {
			t.Errorf("%s (release %d of its site) was published on %s, not on the release before it, %s (%s)",
				rs[i].ID, i+1, base, rs[i-1].ID, before)
		}
	}
}
