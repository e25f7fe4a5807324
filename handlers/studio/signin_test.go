package studio_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"studio/handlers"
	"studio/handlers/internal/apptest"
)

// TestSignInThrottleHTTP: 50 wrong passwords then the right one, through
// the sign-in form (issue 10 item 4).
func TestSignInThrottleHTTP(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "en-GB,en;q=0.9")
	token := c.CSRF("/studio/login")
	statuses := map[int]int{}
	for range 50 {
		res := c.Post("/studio/login", url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {"a wrong guess"}})
		statuses[res.Status]++
	}
	if statuses[http.StatusUnauthorized] != 6 || statuses[http.StatusTooManyRequests] != 44 {
		t.Fatalf("statuses %v, want 6 × 401 then 44 × 429", statuses)
	}
	right := url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}}
	c.Check(t, apptest.Scenario{Name: "RightPasswordWhileLocked", Method: "POST", URL: "/studio/login", Form: right,
		ExpectedStatus:     http.StatusTooManyRequests,
		ExpectedHeaders:    map[string]string{"Retry-After": "60", "Location": ""},
		ExpectedContent:    []string{"data-testid=\"alert\">Too many attempts. Try again in 1\u00a0min.</p>", `value="` + a.Editor.Email + `"`},
		NotExpectedContent: []string{"Elif Editor", "a wrong guess"}})
	tr := a.Client(t, "tr-TR,tr;q=0.9")
	trToken := tr.CSRF("/studio/login")
	tr.Check(t, apptest.Scenario{Name: "Turkish", Method: "POST", URL: "/studio/login",
		Form:            url.Values{"csrf_token": {trToken}, "email": {strings.ToUpper(a.Editor.Email)}, "password": {apptest.Password}},
		ExpectedStatus:  http.StatusTooManyRequests,
		ExpectedHeaders: map[string]string{"Retry-After": "60"},
		ExpectedContent: []string{"data-testid=\"alert\">Çok fazla deneme yapıldı. 1\u00a0dk sonra yeniden deneyin.</p>"}})
	c.Check(t, apptest.Scenario{Name: "StillSignedOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": apptest.LoginNext("/studio/schedules")}})

	a.Clock.Advance(30 * time.Second)
	c.Check(t, apptest.Scenario{Name: "HalfWay", Method: "POST", URL: "/studio/login", Form: right,
		ExpectedStatus: http.StatusTooManyRequests, ExpectedHeaders: map[string]string{"Retry-After": "30"},
		ExpectedContent: []string{"Try again in 30\u00a0s."}})
	a.Clock.Advance(30 * time.Second)
	c.Check(t, apptest.Scenario{Name: "AfterTheLock", Method: "POST", URL: "/studio/login", Form: right,
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio"}})
	var rows int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action = 'auth.sign_in_failed'
		AND json_extract(details, '$.client') = '127.0.0.1' AND json_extract(details, '$.userId') = ?`, a.Editor.ID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 6 {
		t.Errorf("%d audit rows of failed sign-ins, want 6", rows)
	}
}

// TestSignInThrottleCountsTheForwardedClient: behind a trusted proxy the
// throttle and the audit count the client X-Forwarded-For names (the
// nearest address that is not a proxy); from anywhere else the header is
// the client's own claim and is ignored, so it cannot dodge the throttle.
func TestSignInThrottleCountsTheForwardedClient(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	local := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	elsewhere := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name, base, email, want string
	}{
		{"BehindTrustedProxy", a.Serve(t, false, handlers.WithTrustedProxies(local)), "nobody-1@example.com", "203.0.113.7"},
		{"UntrustedSender", a.Serve(t, false, handlers.WithTrustedProxies(elsewhere)), "nobody-2@example.com", "127.0.0.1"},
	} {
		c := a.On(t, tc.base)
		token := c.CSRF("/studio/login")
		c.Check(t, apptest.Scenario{Name: tc.name, Method: "POST", URL: "/studio/login",
			Form:           url.Values{"csrf_token": {token}, "email": {tc.email}, "password": {"a wrong guess"}},
			Header:         map[string]string{"X-Forwarded-For": "198.51.100.1, 203.0.113.7, 127.0.0.9"},
			ExpectedStatus: http.StatusUnauthorized})
		var client string
		if err := a.Store.DB().QueryRow(`SELECT json_extract(details, '$.client') FROM audit
			WHERE action = 'auth.sign_in_failed' AND json_extract(details, '$.email') = ?`, tc.email).Scan(&client); err != nil {
			t.Fatal(err)
		}
		if client != tc.want {
			t.Errorf("%s: the throttle counted %q, want %q", tc.name, client, tc.want)
		}
	}
}
