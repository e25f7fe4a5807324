package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/releases"
	"studio/store"
)

// syncBuffer is a process's stderr, read while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// demoFolder seeds the demo into a new folder with the binary and returns
// the folder, a bearer token of the demo's Owner, the site and a draft.
func demoFolder(t *testing.T, bin string) (data, token, siteID, draftID string) {
	t.Helper()
	data = filepath.Join(t.TempDir(), "data")
	if out, err := exec.Command(bin, "demo", "--data", data).CombinedOutput(); err != nil {
		t.Fatalf("demo: %v %s", err, out)
	}
	out, err := exec.Command(bin, "token", "create", "--user", "owner@demo.test", "--name", "probe", "--data", data).Output()
	if err != nil {
		t.Fatalf("token create: %v %s", err, out)
	}
	token = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := releases.New(engine.New(st, systemClock{}, nil), st)
	sites, err := eng.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	siteID = sites[0].ID
	if err := st.DB().QueryRow(`SELECT id FROM nodes WHERE json_extract(body, '$.slug') = 'election-night'`).Scan(&draftID); err != nil {
		t.Fatal(err)
	}
	return data, token, siteID, draftID
}

// createDraft asks the API for a draft release of node: a write.
func createDraft(t *testing.T, url, token, siteID, node string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"title": "Probe", "nodeIds": []string{node}})
	req, _ := http.NewRequest(http.MethodPost, url+"/api/sites/"+siteID+"/releases", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// healthUntil asks /health until it answers want (a read-only database is
// probed again every three seconds), and returns the last answer.
func healthUntil(t *testing.T, url string, want int) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := get(t, url+"/health")
		var out map[string]any
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatalf("/health is not JSON: %d %s", code, body)
		}
		if code == want {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("/health still answers %d %s, want %d", code, body, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRemovedDatabaseIsLoudProcess is issue 10 item 7: removing studio.db while
// `serve` runs went unnoticed, and writes answered 200 into a file nobody
// would open again. Now /health answers 503 with the reason, writes fail,
// and the log says so.
func TestRemovedDatabaseIsLoudProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	data, token, siteID, draft := demoFolder(t, bin)
	stderr := &syncBuffer{}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data)
	cmd.Stderr = stderr
	url, _, stop := startServe(t, cmd)
	if out := healthUntil(t, url, http.StatusOK); out["status"] != "ok" {
		t.Fatalf("/health before: %v", out)
	}
	if code := createDraft(t, url, token, siteID, draft); code != http.StatusCreated {
		t.Fatalf("a write before the file went: %d", code)
	}

	if err := os.Remove(filepath.Join(data, "studio.db")); err != nil {
		t.Fatal(err)
	}
	out := healthUntil(t, url, http.StatusServiceUnavailable)
	if out["status"] != "unavailable" || out["reason"] != "database file replaced or removed" || out["healthy"] != false {
		t.Errorf("/health with the file gone = %v", out)
	}
	if code := createDraft(t, url, token, siteID, draft); code < 500 {
		t.Errorf("a write with the file gone answered %d, want it to fail (5xx)", code)
	}
	if !strings.Contains(stderr.String(), "DATABASE PROBLEM") || !strings.Contains(stderr.String(), "database file replaced or removed") {
		t.Errorf("the log does not say the database is gone:\n%s", stderr)
	}
	if err := stop(); err != nil {
		t.Errorf("serve did not stop cleanly: %v", err)
	}
}

// TestReadOnlyDatabaseAnswers503Process starts `serve` on a database it cannot
// write: it serves, but /health answers 503 "database is read-only" and
// writes fail, instead of "up, but every write is 500" while healthy. The
// process runs as an unprivileged user when the test runs as root (root
// writes read-only files).
func TestReadOnlyDatabaseAnswers503Process(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	data, token, siteID, draft := demoFolder(t, bin)
	db := filepath.Join(data, "studio.db")
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data)
	if os.Geteuid() == 0 {
		const nobody = 65534
		for _, dir := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin)), filepath.Dir(data), filepath.Dir(filepath.Dir(data))} {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		err := filepath.Walk(data, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Chown(p, nobody, nobody)
		})
		if err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	url, _, stop := startServe(t, cmd)

	out := healthUntil(t, url, http.StatusServiceUnavailable)
	if out["status"] != "unavailable" || out["reason"] != "database is read-only" {
		t.Errorf("/health on a read-only database = %v", out)
	}
	if code, body := get(t, url+"/"); code != http.StatusOK || !strings.Contains(body, "Demo Gazette") {
		t.Errorf("the public site on a read-only database: %d", code)
	}
	if code := createDraft(t, url, token, siteID, draft); code < 500 {
		t.Errorf("a write to a read-only database answered %d, want it to fail (5xx)", code)
	}
	if !strings.Contains(stderr.String(), "DATABASE PROBLEM") {
		t.Errorf("the log does not say the database is read-only:\n%s", stderr)
	}
	if err := stop(); err != nil {
		t.Errorf("serve did not stop cleanly: %v", err)
	}
}

// TestLostDatabaseIsNotReplacedByTheDemoProcess: a restart on a folder whose
// studio.db is gone created an empty database and `--demo` seeded the
// public demo password into it. Now the folder's marker says it held a
// database: every start refuses, --fresh starts an empty one, and the demo
// never goes there.
func TestLostDatabaseIsNotReplacedByTheDemoProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	url, banner, stop := serveProcess(t, bin, data)
	if !strings.Contains(banner, "Seeded the demo site") {
		t.Fatalf("first start did not seed the demo:\n%s", banner)
	}
	if code, _ := get(t, url+"/health"); code != http.StatusOK {
		t.Fatalf("/health: %d", code)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"studio.db", "studio.db-wal", "studio.db-shm"} {
		if err := os.Remove(filepath.Join(data, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}

	for _, args := range [][]string{
		{"serve", "--demo"}, {"serve"}, {"demo"}, {"schedules", "run-due"}, {"serve", "--fresh", "--demo"}, {"demo", "--fresh"},
	} {
		// A start that is not refused would serve for ever: 20 s is ample to be refused.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, bin, append(append(append([]string{}, args...), "--data", data), addrOf(args)...)...)
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil || timedOut {
			t.Errorf("studio %v on a folder that lost its database started: %s", args, out)
			continue
		}
		want := "held a Studio database"
		if !strings.Contains(string(out), want) {
			t.Errorf("studio %v: %q, want it to say the folder %s", args, out, want)
		}
		if _, err := os.Stat(filepath.Join(data, "studio.db")); err == nil {
			t.Fatalf("studio %v created a new studio.db", args)
		}
	}

	// Told to start fresh, serve starts an empty database: no demo in it.
	url, banner, stop = startServe(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--fresh"))
	if strings.Contains(banner, "Seeded") || strings.Contains(banner, "demo-password") {
		t.Errorf("a fresh start seeded the demo:\n%s", banner)
	}
	if code, body := get(t, url+"/"); strings.Contains(body, "Demo Gazette") {
		t.Errorf("home after a fresh start: %d, shows the demo", code)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := st.UserByEmail(context.Background(), "owner@demo.test"); err == nil {
		t.Error("the demo's Owner exists in the fresh database")
	}
}

// addrOf is --addr for the commands that listen.
func addrOf(args []string) []string {
	if args[0] == "serve" {
		return []string{"--addr", "127.0.0.1:0"}
	}
	return nil
}
