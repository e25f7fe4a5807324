package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServePublicURL: `studio serve` builds the public site's absolute URLs
// from --public-url, and without it from the address it listens on, never
// from the request's Host; its CDN lifetime is at most --cdn-max-age.
func TestServePublicURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
		want  func(listen string) string
		age   string
	}{
		{"Default", nil, func(listen string) string { return listen }, "public, max-age=60"},
		{"Flag", []string{"--public-url", "https://news.example/", "--cdn-max-age", "15s"},
			func(string) string { return "https://news.example" }, "public, max-age=15"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, w := io.Pipe()
			args := append([]string{"--addr", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "data"), "--demo"}, tc.flags...)
			done := make(chan error, 1)
			go func() { done <- serveCmd(ctx, args, w, slog.New(slog.DiscardHandler)); w.Close() }()
			lines := bufio.NewScanner(r)
			running := regexp.MustCompile(`running on (http://[0-9.:]+)/studio`)
			var listen string
			for listen == "" && lines.Scan() {
				if m := running.FindStringSubmatch(lines.Text()); m != nil {
					listen = m[1]
				}
			}
			go io.Copy(io.Discard, r)
			if listen == "" {
				t.Fatalf("serve did not start: %v", <-done)
			}
			req, err := http.NewRequest(http.MethodGet, listen+"/sitemap.xml", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = "evil.test"
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if want := "<loc>" + tc.want(listen) + "/posts/welcome</loc>"; !strings.Contains(string(body), want) ||
				strings.Contains(string(body), "evil.test") {
				t.Errorf("sitemap lacks %s (or names evil.test):\n%s", want, body)
			}
			if got := res.Header.Get("CDN-Cache-Control"); got != tc.age {
				t.Errorf("CDN-Cache-Control %q, want %q", got, tc.age)
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not stop")
			}
		})
	}
	if _, err := publicBase("news.example", &net.TCPAddr{}); err == nil {
		t.Error("a public URL without a scheme was accepted")
	}
	if got, err := publicBase("", &net.TCPAddr{IP: net.IPv6zero, Port: 8080}); err != nil || got != "http://localhost:8080" {
		t.Errorf("listening on [::]:8080: %q, %v", got, err)
	}
}
