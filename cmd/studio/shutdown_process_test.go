package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/fakeclock"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// TestGracefulShutdownProcess (issue 16): SIGTERM reaches `studio serve` while a
// release run is between its claim and its effect (a test hook slows the
// effect). Within 10 s the process has exited, and no release is left
// running on a live lease: a run that can finish in the grace period is
// published; one that cannot is handed back, and the next tick (another
// instance, or here `schedules run-due`) publishes it at once, not when
// the lease would have lapsed. On both engines.
func TestGracefulShutdownProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, tc := range []struct {
		name     string
		postgres bool
		effect   string // how long the hook delays the run's effect
	}{
		{"SQLite/finishes", false, "2s"},
		{"SQLite/handsBack", false, "60s"},
		{"PostgreSQL/handsBack", true, "60s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gracefulShutdown(t, bin, tc.postgres, tc.effect)
		})
	}
}

func gracefulShutdown(t *testing.T, bin string, postgres bool, effect string) {
	ctx := context.Background()
	db, st := seededDatabase(t, bin, postgres)
	clock := fakeclock.New(time.Now().Add(-3 * time.Minute)) // the release is due when serve starts
	eng := releases.New(engine.New(st, clock, nil), st)
	site, editor := demoEditor(t, eng, st)
	r := scheduleArticle(t, eng, st, site, editor, "shutdown", clock.Now().Add(2*time.Minute))

	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, db...)...)
	cmd.Env = append(os.Environ(), slowApplyEnv+"="+effect)
	stderr, w := io.Pipe()
	cmd.Stderr = w
	applying := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "applying "); ok {
				applying <- id
			}
		}
	}()
	_, _, stop := startServe(t, cmd)
	select {
	case id := <-applying:
		if id != r.ID {
			t.Fatalf("applying %s, want %s", id, r.ID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve never reached the release's effect")
	}
	began := time.Now()
	stop() // SIGTERM, and wait
	w.Close()
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("serve took %s to exit after SIGTERM", took)
	}

	got, err := st.Release(ctx, site.ID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if effect == "2s" {
		if state := checkOnce(t, eng, st, site.ID, r.ID); state != release.StatePublished {
			t.Fatalf("a run that could finish in the grace period is %s", state)
		}
		return
	}
	if got.State != release.StateRunning || got.LeaseUntil == nil || got.LeaseUntil.After(time.Now()) {
		t.Fatalf("the unfinished run was not handed back: %s, lease until %v", got.State, got.LeaseUntil)
	}
	if out, err := exec.Command(bin, append([]string{"schedules", "run-due"}, db...)...).CombinedOutput(); err != nil {
		t.Fatalf("run-due: %v %s", err, out)
	}
	if state := checkOnce(t, eng, st, site.ID, r.ID); state != release.StatePublished {
		t.Fatalf("the next tick left the handed-back release %s", state)
	}
}
