//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/fakeclock"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/releases"
)

// TestKilledAutomationStepResumesOnceProcess is §11.1's crash rule with real
// processes: a built-in run of three steps, one `schedules run-due` a
// step. The process taking the second step is stopped inside it (before its
// work is done) and killed with SIGKILL. A process right after finds the
// step's lease live and does nothing; one after the lease ended takes the
// step over from the same cursor, and the run ends once: every step's work
// done exactly once, the killed step started twice, attempt 2.
func TestKilledAutomationStepResumesOnceProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	ctx := context.Background()
	data, st := seededData(t, bin)
	steps := filepath.Join(t.TempDir(), "steps.log")

	// A daily sweep at the real clock's current minute, made a minute
	// before it, so its first occurrence is due now.
	minute := time.Now().UTC().Truncate(time.Minute)
	eng := releases.New(engine.New(st, fakeclock.New(minute.Add(-time.Minute)), nil), st)
	owner, _, err := st.UserByEmail(ctx, "editor@demo.test")
	if err != nil {
		t.Fatal(err)
	}
	sites, err := eng.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owner.SiteID = sites[0].ID // the demo's one site
	loc, _ := localtime.LoadZone(sites[0].TimeZone)
	w := localtime.WallOf(minute, loc)
	a, err := automations.New(st, eng).Create(ctx, owner, sites[0].ID, automations.Input{Name: "Crash sweep",
		Builtin: automation.BuiltinBrokenLinks, Rule: "FREQ=DAILY;BYHOUR=" + strconv.Itoa(w.Hour) + ";BYMINUTE=" + strconv.Itoa(w.Minute), Start: w.String()})
	if err != nil {
		t.Fatal(err)
	}

	runDue := func(stopAt string) *exec.Cmd {
		cmd := exec.Command(bin, "schedules", "run-due", "--data", data)
		cmd.Env = append(os.Environ(), testJobsEnv+"="+steps)
		if stopAt != "" {
			cmd.Env = append(cmd.Env, testStopInStepEnv+"="+stopAt)
			ownProcessGroup(cmd)
		}
		return cmd
	}
	mustRun := func(what string) {
		t.Helper()
		if out, err := runDue("").CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", what, err, out)
		}
	}
	mustRun("the first step")
	runs, err := st.Runs(ctx, automations.RunFilter{SiteID: sites[0].ID, AutomationID: a.ID, Limit: 10})
	if err != nil || len(runs) != 1 || runs[0].Cursor != "1" {
		t.Fatalf("after the first step: %+v %v", runs, err)
	}
	run := runs[0]

	// The second step's process stops inside the step, and is killed there.
	killed := runDue("1")
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killed.Process.Kill(); killed.Wait() })
	waitStopped(t, killed, steps, "start "+run.ID+" 1")
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Wait()

	mustRun("a tick under the dead step's lease")
	if got := lines(t, steps, run.ID); got != "start  done  start 1" {
		all, _ := os.ReadFile(steps)
		t.Fatalf("steps under the live lease: %q\n%s", got, all)
	}
	// The lease is 45 s: after it a tick takes the step over.
	time.Sleep(46 * time.Second)
	mustRun("the take-over")
	mustRun("the last step")
	if got := lines(t, steps, run.ID); got != "start  done  start 1 start 1 done 1 start 2 done 2" {
		t.Fatalf("steps: %q", got)
	}
	got, err := st.Run(ctx, sites[0].ID, run.ID)
	if err != nil || got.State != "succeeded" || got.Attempt != 2 || got.Counts["checked"] != 3 {
		t.Fatalf("the run: %+v %v", got, err)
	}
	if cur, err := st.Automation(ctx, sites[0].ID, a.ID); err != nil || cur.OpenRunID != "" || cur.ConsecutiveFailures != 0 {
		t.Fatalf("the automation: %+v %v", cur, err)
	}
}

// lines are the fake job's notes for one run, its id left out.
func lines(t *testing.T, path, runID string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if rest, ok := strings.CutPrefix(l, "start "+runID+" "); ok {
			out = append(out, "start "+rest)
		} else if rest, ok := strings.CutPrefix(l, "done "+runID+" "); ok {
			out = append(out, "done "+rest)
		}
	}
	return strings.Join(out, " ")
}

// waitStopped waits until cmd has written line to path and stopped itself.
func waitStopped(t *testing.T, cmd *exec.Cmd, path, line string) {
	t.Helper()
	for i := 0; ; i++ {
		b, _ := os.ReadFile(path)
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
		if err == nil && strings.Contains(string(b), line) {
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "T" {
				return
			}
		}
		if i == 3000 {
			t.Fatal("the step's process did not stop in the step")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
