package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"studio/engine"
	"studio/engine/identity"
)

// TestSignInThrottleInTheBrowser: after six wrong passwords the sign-in
// page says how long to wait, in Turkish and in English, even to the right
// password; once the wait passes the right one works, and the language
// chosen on the sign-in page is the account's from then on (issue 10 item
// 4 and the newcomer's bullet).
func TestSignInThrottleInTheBrowser(t *testing.T) {
	t.Parallel()
	app := startBrowserApp(t, time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC))
	ctx := newBrowser(t)
	for range 6 {
		_, err := app.identity.SignIn(context.Background(), identity.SignInTry{Email: "editor@demo.test", Password: "a wrong guess", Client: "198.51.100.9"})
		if e, ok := engine.AsError(err); !ok || e.Code != identity.CodeBadCredentials {
			t.Fatalf("wrong password: %v", err)
		}
	}
	// Each form's answer is a new page: wait for it (submitAndWait), so no
	// check runs on a page that is navigating away.
	signIn := func(lang string) {
		t.Helper()
		must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] #email`))))
		submitAndWait(t, ctx,
			chromedp.SetValue(chromedp.CSS("#email"), "editor@demo.test"),
			chromedp.SetValue(chromedp.CSS("#password"), demoPassword),
			chromedp.Click(chromedp.CSS("form.stack button[type=submit]")),
		)
	}

	t.Log("Turkish, chosen on the sign-in page")
	must(t, do(ctx,
		chromedp.Navigate(app.url+"/studio/login"),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] #email`)),
	))
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`form.lang button[value="tr"]`)))
	signIn("tr")
	waitText(t, ctx, `[data-testid="alert"]`, "Çok fazla deneme yapıldı. 1\u00a0dk sonra yeniden deneyin.")
	shotsAsIs(t, ctx, "signin-throttled-tr")

	t.Log("English, chosen on the sign-in page")
	submitAndWait(t, ctx, chromedp.Click(chromedp.CSS(`form.lang button[value="en"]`)))
	signIn("en")
	waitText(t, ctx, `[data-testid="alert"]`, "Too many attempts. Try again in 1\u00a0min.")
	shotsAsIs(t, ctx, "signin-throttled-en")

	t.Log("the wait passes: the right password signs in, in the language chosen (the account's was Turkish)")
	app.clock.Advance(time.Minute)
	signIn("en")
	must(t, do(ctx, chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] #new-release`))))
	u, err := app.identity.SignIn(context.Background(), identity.SignInTry{Email: "editor@demo.test", Password: demoPassword})
	must(t, err)
	if u.Lang != "en" {
		t.Errorf("the account's language is %q, want en as chosen on the sign-in page", u.Lang)
	}
}

// shotsAsIs is shots for a page that a reload would not show again (the
// answer to a form's POST): the same widths and schemes, without reloading.
func shotsAsIs(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, scheme := range []string{"light", "dark"} {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		must(t, err)
		for _, w := range []int64{1440, 390} {
			must(t, do(ctx, chromedp.EmulateViewport(w, 900)))
			shot(t, ctx, fmt.Sprintf("%s-%s-%d", name, scheme, w))
		}
	}
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
	must(t, err)
	must(t, do(ctx, chromedp.EmulateViewport(1440, 900)))
}
