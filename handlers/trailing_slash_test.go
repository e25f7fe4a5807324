package handlers_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"

	"studio/handlers/internal/apptest"
)

// TestTrailingSlashRedirects: a read of an address no route answers that
// ends in a slash goes to the address without it (a newcomer types
// /studio/), its query kept, served or not, so the redirect tells nothing
// about what exists. The target is always this site's: leading slashes
// collapse and a backslash stays escaped, never //host. Writes and
// addresses without the slash are answered as before.
func TestTrailingSlashRedirects(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	anon := a.Client(t, "")
	moved := func(name, from, to string) apptest.Scenario {
		return apptest.Scenario{Name: name, URL: from, ExpectedStatus: http.StatusMovedPermanently,
			ExpectedHeaders: map[string]string{"Location": to, "Cache-Control": "no-store"}}
	}
	apptest.RunScenarios(t, anon, []apptest.Scenario{
		moved("Studio", "/studio/", "/studio"),
		moved("StudioPage", "/studio/schedules/", "/studio/schedules"),
		moved("PublicWithQuery", "/posts/election-night/?ref=home", "/posts/election-night?ref=home"),
		moved("NothingThere", "/posts/no-such-post/", "/posts/no-such-post"),
		moved("Turkish", "/posts/%C3%A7ay-saati/", "/posts/%C3%A7ay-saati"),
		moved("NeverAnotherHost", "//evil.example/", "/evil.example"),
		moved("ManySlashes", "/studio///", "/studio"),
		{Name: "HeadToo", Method: http.MethodHead, URL: "/studio/", ExpectedStatus: http.StatusMovedPermanently,
			ExpectedHeaders: map[string]string{"Location": "/studio"}},
		{Name: "WritesAreNotMoved", Method: http.MethodPost, URL: "/studio/login/", ExpectedStatus: http.StatusForbidden},
		{Name: "Root", URL: "/", ExpectedStatus: http.StatusOK},
	})

	// A backslash after the slash would make a browser read //host.
	conn, err := net.Dial("tcp", strings.TrimPrefix(a.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /\\evil.example/ HTTP/1.1\r\nHost: studio.test\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusMovedPermanently || loc != "/%5Cevil.example" {
		t.Errorf(`GET /\evil.example/: %d, Location %q; want 301 to "/%%5Cevil.example"`, res.StatusCode, loc)
	}
}
