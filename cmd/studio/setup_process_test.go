package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var setupLink = regexp.MustCompile(`(http://[0-9.:]+)(/studio/setup\?token=[A-Za-z0-9_-]{43})\n`)

// TestFirstRunFromAnEmptyFolderProcess: `studio serve` without --demo on an empty
// folder prints a one-time setup link; a restart before the setup makes a
// new link and the old one is dead; the link sets Studio up; after it no
// link is printed and the public site answers with its empty home.
func TestFirstRunFromAnEmptyFolderProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	serve := func() (string, string, func() error) {
		t.Helper()
		return startServe(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data))
	}
	link := func(banner string) (base, path string) {
		t.Helper()
		m := setupLink.FindStringSubmatch(banner + "\n")
		if m == nil {
			t.Fatalf("no setup link in the start banner:\n%s", banner)
		}
		return m[1], m[2]
	}

	_, banner, stop := serve()
	_, first := link(banner)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	_, banner, stop = serve()
	base, path := link(banner)
	if path == first {
		t.Fatal("a restarted process printed the same setup link")
	}
	if code, _ := get(t, base+first); code != http.StatusNotFound {
		t.Fatalf("the first process's link: %d, want 404", code)
	}
	if code, _ := get(t, base+"/studio/setup"); code != http.StatusNotFound {
		t.Fatalf("setup without the token: %d, want 404", code)
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := browser.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	csrf := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindSubmatch(page)
	if res.StatusCode != http.StatusOK || csrf == nil {
		t.Fatalf("the setup link: %d\n%s", res.StatusCode, page)
	}
	token := strings.TrimPrefix(path, "/studio/setup?token=")
	res, err = browser.PostForm(base+"/studio/setup", url.Values{"csrf_token": {string(csrf[1])}, "token": {token},
		"siteName": {"Kuzey Haber"}, "publicUrl": {"https://kuzeyhaber.example"}, "timeZone": {"Europe/Istanbul"},
		"siteLang": {"tr"}, "name": {"Zeynep Kaya"}, "email": {"zeynep@kuzeyhaber.example"}, "password": {demoPassword}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("setup: %d, want 303", res.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	base, banner, stop = serve()
	if strings.Contains(banner, "setup") {
		t.Fatalf("a set-up Studio printed a setup link:\n%s", banner)
	}
	if code, body := get(t, base+"/"); code != http.StatusOK || !strings.Contains(body, "Kuzey Haber") || !strings.Contains(body, "Henüz yayımlanan bir şey yok.") {
		t.Fatalf("the public home after setup: %d\n%s", code, body)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
