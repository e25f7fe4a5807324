package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"studio/engine/localtime"
)

// TestTzdataBetweenRunsProcess (issue 16, §9.1): `studio version` names the build,
// Go and the zone data; a run on the same zone data as the last one leaves
// the releases as they are, and a run on other zone data (here Go's own
// zip, through $ZONEINFO) resolves the releases to come again at once: one
// an older tzdata had put half an hour early moves to its wall-clock time,
// audited as adjusted by tzdata.
func TestTzdataBetweenRunsProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), runtime.Version()) || !strings.Contains(string(out), "\ntzdata ") {
		t.Fatalf("studio version: %v\n%s", err, out)
	}
	db, st := seededDatabase(t, bin, false)
	runDue := func(env ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"schedules", "run-due"}, db...)...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run-due: %v %s", err, out)
		}
	}
	fact := func() string {
		t.Helper()
		var v string
		if err := st.DB().QueryRow(`SELECT value FROM instance_facts WHERE name = 'tzdata'`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	runDue()
	first := fact()
	var id, at string
	if err := st.DB().QueryRow(`SELECT id, execute_at FROM releases WHERE state = 'scheduled' AND local_time IS NOT NULL
		AND execute_at > ? ORDER BY execute_at DESC LIMIT 1`, localtime.FormatInstant(time.Now().Add(2*time.Hour))).Scan(&id, &at); err != nil {
		t.Fatalf("the demo has no release to come with a wall-clock time: %v", err)
	}
	want, _ := localtime.ParseInstant(at)
	tamper := func() {
		if _, err := st.DB().Exec(`UPDATE releases SET execute_at = ? WHERE id = ?`, localtime.FormatInstant(want.Add(-30*time.Minute)), id); err != nil {
			t.Fatal(err)
		}
	}
	stored := func() time.Time {
		var s string
		if err := st.DB().QueryRow(`SELECT execute_at FROM releases WHERE id = ?`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		got, _ := localtime.ParseInstant(s)
		return got
	}
	tamper()
	runDue()
	if got := stored(); !got.Equal(want.Add(-30 * time.Minute)) {
		t.Fatalf("a run on the same zone data (%s) moved the release to %s", first, got)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	runDue("ZONEINFO=" + filepath.Join(strings.TrimSpace(string(goroot)), "lib", "time", "zoneinfo.zip"))
	if fact() == first {
		t.Fatalf("the zone data's version stayed %q under $ZONEINFO", first)
	}
	if got := stored(); !got.Equal(want) {
		t.Fatalf("after the zone data changed the release is at %s, want %s", got, want)
	}
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM audit WHERE release_id = ? AND action = 'release.reschedule'
		AND json_extract(details, '$.adjusted') = 'tzdata'`, id).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d tzdata reschedule audit rows (%v), want 1", n, err)
	}
}
