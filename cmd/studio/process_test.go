package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/identity"
	"studio/store"
)

// built is the studio binary the process tests run, built by the first
// test that asks for it: linking it takes seconds of CPU each time, and a
// dozen tests run it.
var built struct {
	once sync.Once
	dir  string
	bin  string
	out  []byte
	err  error
}

// buildBinary builds cmd/studio once per test run and returns its path.
// Tests only run it; none may change it.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "studio-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "studio")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// ownProcessGroup puts a process that will stop itself (SIGSTOP) in a
// process group of its own. In the test's group the kernel would hang it
// up (SIGHUP, then SIGCONT) if that group lost its last parent outside
// meanwhile, as when the shell that started make test in the background
// ends: a CI run lost a stopped process that way. Its own group keeps the
// test binary, in another group, as that parent.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// serveProcess starts `studio serve` on a free port and returns its URL once
// it says it is running, and a function that stops it with SIGTERM.
func serveProcess(t *testing.T, bin, data string) (url, banner string, stop func() error) {
	t.Helper()
	return startServe(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--demo"))
}

// startServe starts cmd, a `studio serve` on a free port, as serveProcess
// does; its stderr goes where cmd.Stderr says (nowhere if unset).
func startServe(t *testing.T, cmd *exec.Cmd) (url, banner string, stop func() error) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	running := regexp.MustCompile(`running on (http://[0-9.:]+)/studio`)
	var seen []string
	deadline := time.After(30 * time.Second)
	for url == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("studio exited early: %q", seen)
			}
			seen = append(seen, line)
			if m := running.FindStringSubmatch(line); m != nil {
				url = m[1]
			}
		case <-deadline:
			t.Fatalf("studio did not start: %q", seen)
		}
	}
	// The sign-in lines follow the "running" line.
	for len(seen) < 4 {
		select {
		case line := <-lines:
			seen = append(seen, line)
		case <-time.After(2 * time.Second):
			return url, strings.Join(seen, "\n"), stopper(cmd)
		}
	}
	return url, strings.Join(seen, "\n"), stopper(cmd)
}

func stopper(cmd *exec.Cmd) func() error {
	return func() error {
		cmd.Process.Signal(syscall.SIGTERM)
		return cmd.Wait()
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestRealProcess starts the built binary on a fresh folder, as `make run`
// does: it seeds the demo once, serves the site and its health, says how to
// sign in, stops cleanly on SIGTERM, and does not seed again on restart.
func TestRealProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")

	url, banner, stop := serveProcess(t, bin, data)
	for _, want := range []string{"Seeded the demo site", "/studio/login", "editor@demo.test", demoPassword} {
		if !strings.Contains(banner, want) {
			t.Errorf("start banner lacks %q:\n%s", want, banner)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "studio.db")); err != nil {
		t.Fatalf("no database file: %v", err)
	}
	if code, body := get(t, url+"/health"); code != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("/health: %d %s", code, body)
	}
	if code, body := get(t, url+"/"); code != 200 || !strings.Contains(body, "Demo Gazette") || !strings.Contains(body, "Welcome to the Gazette") {
		t.Fatalf("home: %d %s", code, body)
	}
	if code, _ := get(t, url+"/studio/login"); code != 200 {
		t.Fatalf("login page: %d", code)
	}
	if err := stop(); err != nil {
		t.Fatalf("studio did not stop cleanly on SIGTERM: %v", err)
	}

	url, banner, stop = serveProcess(t, bin, data)
	if strings.Contains(banner, "Seeded") {
		t.Errorf("the demo was seeded twice:\n%s", banner)
	}
	if code, _ := get(t, url+"/"); code != 200 {
		t.Fatalf("home after restart: %d", code)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestUserAdd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	if err := run(ctx, []string{"user", "add", "--email", "ayse@example.com", "--name", "Ayşe", "--password-stdin", "--data", data},
		strings.NewReader("a long enough secret\n"), io.Discard, nil); err == nil || !strings.Contains(err.Error(), "there is no site yet") {
		t.Fatalf("user add before any site: %v", err)
	}
	addSite(t, data)
	var out strings.Builder
	args := []string{"user", "add", "--email", "ayse@example.com", "--name", "Ayşe Yılmaz", "--role", "editor", "--password-stdin", "--data", data}
	if err := run(ctx, args, strings.NewReader("a long enough secret\n"), &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Ayşe Yılmaz") {
		t.Errorf("output: %q", out.String())
	}
	// Bad input is refused with a sentence, and changes nothing.
	for _, bad := range [][]string{
		{"--email", "not-an-email", "--name", "X", "--role", "editor"},
		{"--email", "ayse@example.com", "--name", "Again", "--role", "editor"},
		{"--email", "b@example.com", "--name", "B", "--role", "emperor"},
	} {
		err := run(ctx, append(append([]string{"user", "add"}, bad...), "--password-stdin", "--data", data),
			strings.NewReader("a long enough secret\n"), io.Discard, nil)
		if err == nil {
			t.Errorf("user add %v: accepted", bad)
		}
	}
	if err := run(ctx, []string{"user", "add", "--email", "c@example.com", "--name", "C", "--password-stdin", "--data", data},
		strings.NewReader("short\n"), io.Discard, nil); err == nil || !strings.Contains(err.Error(), "at least 10 characters") {
		t.Errorf("short password: %v", err)
	}
	// Without a terminal and without --password-stdin there is no password,
	// and no default one either.
	if err := run(ctx, []string{"user", "add", "--email", "d@example.com", "--name", "D", "--data", data},
		strings.NewReader(""), io.Discard, nil); err == nil {
		t.Error("user add without a password was accepted")
	}

	st, err := store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	people := identity.New(engine.New(st, systemClock{}, nil), st, nil)
	if _, err := people.SignIn(ctx, identity.SignInTry{Email: "ayse@example.com", Password: "a long enough secret"}); err != nil {
		t.Fatalf("sign in as the new user: %v", err)
	}
	for _, email := range []string{"b@example.com", "c@example.com", "d@example.com"} {
		if _, _, err := st.UserByEmail(ctx, email); err == nil {
			t.Errorf("%s was created", email)
		}
	}
}
