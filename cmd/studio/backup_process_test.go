package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/store"
)

// TestBackupAndRestoreProcess (issue 16): `studio backup` copies the database of
// a running Studio; `studio restore` makes the copy a new folder's
// database (and refuses a folder that has one); Studio started on the
// restored folder publishes the release that was scheduled at the backup,
// and holds nothing written after it. The restored instance runs with its
// clock three minutes ahead (STUDIO_TEST_CLOCK_SKEW; on SQLite the machine's
// clock is the scheduler's), so the release's minute comes at once.
func TestBackupAndRestoreProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	ctx := context.Background()
	db, st := seededDatabase(t, bin, false)
	clock := fakeclock.New(time.Now())
	eng := releases.New(engine.New(st, clock, nil), st)
	site, editor := demoEditor(t, eng, st)
	// 1–2 minutes ahead: not due before the restored Studio starts.
	r := scheduleArticle(t, eng, st, site, editor, "in-the-backup", clock.Now().Add(2*time.Minute))

	_, _, stop := startServe(t, exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, db...)...))
	file := filepath.Join(t.TempDir(), "studio-backup.db")
	if out, err := exec.Command(bin, append([]string{"backup", "--to", file}, db...)...).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "Backed up") {
		t.Fatalf("backup of a running Studio: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, append([]string{"backup", "--to", file}, db...)...).CombinedOutput(); err == nil {
		t.Errorf("a backup overwrote a file:\n%s", out)
	}
	if _, err := nodes.New(eng, st).CreateNode(ctx, editor, site.ID, release.KindContentEntry,
		content.Body{Title: "After", Slug: "after-the-backup", Status: content.StatusDraft}); err != nil {
		t.Fatal(err)
	}
	stop()

	restored := t.TempDir()
	if out, err := exec.Command(bin, "restore", "--from", file, "--data", restored).CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "restore", "--from", file, "--data", restored).CombinedOutput(); err == nil {
		t.Errorf("restore over a folder's database:\n%s", out)
	}
	if out, err := exec.Command(bin, "restore", "--from", filepath.Join(db[1], markerName), "--data", t.TempDir()).CombinedOutput(); err == nil {
		t.Errorf("restore of a file that is no backup:\n%s", out)
	}

	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", restored)
	cmd.Env = append(os.Environ(), "STUDIO_TEST_CLOCK_SKEW=3m")
	url, _, _ := startServe(t, cmd)
	rst, err := store.Open(ctx, filepath.Join(restored, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer rst.Close()
	reng := releases.New(engine.New(rst, clock, nil), rst)
	waitPublished(t, rst, site.ID, r.ID, time.Now().Add(30*time.Second), "the restored Studio left the scheduled release")
	if state := checkOnce(t, reng, rst, site.ID, r.ID); state != release.StatePublished {
		t.Fatalf("release %s", state)
	}
	if code, body := get(t, url+"/posts/in-the-backup"); code != 200 || !strings.Contains(body, "Article in-the-backup") {
		t.Errorf("the restored Studio's public site: %d", code)
	}
	for slug, want := range map[string]int{"in-the-backup": 1, "after-the-backup": 0} {
		var n int
		if err := rst.DB().QueryRow(`SELECT count(*) FROM nodes WHERE json_extract(body, '$.slug') = ?`, slug).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("the restored database holds %d nodes %s, want %d (the backup is the moment it was made)", n, slug, want)
		}
	}
}
