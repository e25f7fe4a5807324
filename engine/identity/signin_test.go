package identity_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"studio/engine/throttle"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/ids"
	"studio/engine/policy"
)

const signInPassword = "a right password, at last"

// signInUser adds an account whose password is signInPassword, hashed at
// bcrypt's lowest cost (SignIn reads the cost from the hash).
func (b *testBundle) signInUser(tb testing.TB, email string) engine.User {
	tb.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(signInPassword), bcrypt.MinCost)
	if err != nil {
		tb.Fatal(err)
	}
	u := engine.User{ID: ids.New("user"), Email: email, Name: "Sign In", Role: policy.Editor, Lang: "en"}
	if err := b.Store.CreateUser(context.Background(), u, string(h), b.Clock.Now()); err != nil {
		tb.Fatal(err)
	}
	return u
}

// signInCode tries a sign-in and returns the refusal's code ("" for a
// success) and, for too_many_attempts, how long to wait.
func (b *testBundle) signInCode(tb testing.TB, email, password, client string) (string, time.Duration) {
	tb.Helper()
	_, err := b.Identity.SignIn(context.Background(), identity.SignInTry{Email: email, Password: password, Client: client})
	if err == nil {
		return "", 0
	}
	e, ok := engine.AsError(err)
	if !ok {
		tb.Fatalf("sign in %s: %v", email, err)
	}
	wait, _ := e.Args["RetryAfter"].(time.Duration)
	return e.Code, wait
}

func TestSignInThrottle(t *testing.T) {
	t.Parallel()
	const addr = "203.0.113.7"

	t.Run("FiftyWrongThenTheRightOne", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		checks := identity.CountPasswordChecks(b.Identity)
		b.signInUser(t, "signer@example.com")
		codes := map[string]int{}
		for i := range 50 {
			code, _ := b.signInCode(t, "Signer@Example.com ", fmt.Sprintf("guess %d", i), addr)
			codes[code]++
		}
		// Five free failures, a sixth that locks the account, and 44 tries
		// refused without a hash.
		if codes[identity.CodeBadCredentials] != 6 || codes[identity.CodeTooManyAttempts] != 44 {
			t.Fatalf("codes %v, want 6 bad_credentials and 44 too_many_attempts", codes)
		}
		if n := checks.Load(); n != 6 {
			t.Errorf("%d password hashes checked for 50 tries, want 6", n)
		}
		// The right password is refused while the lock lasts, from any
		// address, and costs no hash either.
		code, wait := b.signInCode(t, "signer@example.com", signInPassword, addr)
		if code != identity.CodeTooManyAttempts || wait != time.Minute {
			t.Fatalf("right password while locked: %q, wait %v; want too_many_attempts for 1m0s", code, wait)
		}
		if code, _ := b.signInCode(t, "signer@example.com", signInPassword, "198.51.100.1"); code != identity.CodeTooManyAttempts {
			t.Fatalf("right password from another address while locked: %q", code)
		}
		b.Clock.Advance(59 * time.Second)
		if code, wait := b.signInCode(t, "signer@example.com", signInPassword, addr); code != identity.CodeTooManyAttempts || wait != time.Second {
			t.Fatalf("a second before the lock ends: %q, wait %v", code, wait)
		}
		if n := checks.Load(); n != 6 {
			t.Errorf("%d hashes checked, want still 6", n)
		}
		// The delay grows: the next wrong password locks for two minutes.
		b.Clock.Advance(time.Second)
		if code, _ := b.signInCode(t, "signer@example.com", "another guess", addr); code != identity.CodeBadCredentials {
			t.Fatalf("wrong password after the lock: %q", code)
		}
		if code, wait := b.signInCode(t, "signer@example.com", signInPassword, addr); code != identity.CodeTooManyAttempts || wait != 2*time.Minute {
			t.Fatalf("after the 7th failure: %q, wait %v; want 2m0s", code, wait)
		}
		b.Clock.Advance(2 * time.Minute)
		if code, _ := b.signInCode(t, "signer@example.com", signInPassword, addr); code != "" {
			t.Fatalf("right password after the lock: %q", code)
		}
		// A success forgets the failures: five wrong ones are free again.
		for i := range 5 {
			if code, _ := b.signInCode(t, "signer@example.com", "wrong", addr); code != identity.CodeBadCredentials {
				t.Fatalf("wrong password %d after a success: %q", i+1, code)
			}
		}
		if code, _ := b.signInCode(t, "signer@example.com", signInPassword, addr); code != "" {
			t.Fatalf("right password after five failures: %q", code)
		}
	})

	t.Run("DelaysDoubleUpToAnHour", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		b.signInUser(t, "signer@example.com")
		for failed := 0; failed < 13; {
			switch code, wait := b.signInCode(t, "signer@example.com", "wrong", ""); code {
			case identity.CodeTooManyAttempts:
				b.Clock.Advance(wait) // the lock passes
			case identity.CodeBadCredentials:
				failed++
			default:
				t.Fatalf("wrong password: %q", code)
			}
		}
		// Each failure's audit row says how long it locked the account.
		got := b.texts(t, `SELECT coalesce(json_extract(details, '$.lockedSeconds'), '0') FROM audit
			WHERE action = 'auth.sign_in_failed' ORDER BY id`)
		want := []string{"0", "0", "0", "0", "0", "60", "120", "240", "480", "960", "1920", "3600", "3600"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("locks %v, want %v seconds", got, want)
		}
	})

	t.Run("UnknownEmailsAreThrottledAlike", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		checks := identity.CountPasswordChecks(b.Identity)
		for range 10 {
			b.signInCode(t, "nobody@example.com", "guess", addr)
		}
		if code, _ := b.signInCode(t, "nobody@example.com", "guess", addr); code != identity.CodeTooManyAttempts {
			t.Fatalf("an unknown email is not locked: %q", code)
		}
		if n := checks.Load(); n != 6 {
			t.Errorf("%d hashes checked, want 6", n)
		}
	})

	t.Run("PerAddressAcrossAccounts", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		b.signInUser(t, "signer@example.com")
		// 21 accounts, one wrong password each, from one address: 20 are
		// free, the 21st locks the address.
		for i := range 21 {
			b.signInUser(t, fmt.Sprintf("user%d@example.com", i)) // known accounts: an unknown one costs a full-cost hash
			if code, _ := b.signInCode(t, fmt.Sprintf("user%d@example.com", i), "guess", addr); code != identity.CodeBadCredentials {
				t.Fatalf("try %d: %q", i+1, code)
			}
		}
		code, wait := b.signInCode(t, "signer@example.com", signInPassword, addr)
		if code != identity.CodeTooManyAttempts || wait != time.Minute {
			t.Fatalf("right password from the locked address: %q, wait %v", code, wait)
		}
		// The account itself is not locked: another address signs in.
		if code, _ := b.signInCode(t, "signer@example.com", signInPassword, "198.51.100.1"); code != "" {
			t.Fatalf("right password from another address: %q", code)
		}
		b.Clock.Advance(time.Minute)
		if code, _ := b.signInCode(t, "signer@example.com", signInPassword, addr); code != "" {
			t.Fatalf("right password once the address lock passed: %q", code)
		}
	})

	t.Run("IPv6By64", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		b.signInUser(t, "signer@example.com")
		for i := range 21 {
			// Each try from another address of one /64.
			client := fmt.Sprintf("2001:db8:1:2:%x::%x", i, i+1)
			b.signInUser(t, fmt.Sprintf("user%d@example.com", i))
			if code, _ := b.signInCode(t, fmt.Sprintf("user%d@example.com", i), "guess", client); code != identity.CodeBadCredentials {
				t.Fatalf("try %d: %q", i+1, code)
			}
		}
		if code, _ := b.signInCode(t, "signer@example.com", signInPassword, "2001:db8:1:2:ffff::1"); code != identity.CodeTooManyAttempts {
			t.Fatalf("the same /64: %q, want too_many_attempts", code)
		}
		if code, _ := b.signInCode(t, "signer@example.com", signInPassword, "2001:db8:1:3::1"); code != "" {
			t.Fatalf("the next /64: %q, want a success", code)
		}
	})

	t.Run("ABurstCountsAsMuchAsASequence", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		checks := identity.CountPasswordChecks(b.Identity)
		b.signInUser(t, "signer@example.com")
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				b.Identity.SignIn(context.Background(), identity.SignInTry{Email: "signer@example.com",
					Password: fmt.Sprintf("guess %d", i), Client: fmt.Sprintf("198.51.100.%d", i)})
			})
		}
		wg.Wait()
		if n := checks.Load(); n != 6 {
			t.Errorf("40 concurrent tries checked %d hashes, want 6", n)
		}
	})

	t.Run("AuditRows", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		u := b.signInUser(t, "signer@example.com")
		long := strings.Repeat("ş", 150) + "@example.com"
		b.signInCode(t, "signer@example.com", "hunter2-secret", addr)
		b.signInCode(t, long, "other-secret", "2001:db8::7")
		for range 5 { // the 6th failure in a row locks the account
			b.signInCode(t, "signer@example.com", "hunter2-secret", addr)
		}
		b.signInCode(t, "signer@example.com", "hunter2-secret", addr) // refused by the lock: no row
		b.signInCode(t, "signer@example.com", signInPassword, addr)   // refused by the lock: no row
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'auth.sign_in_failed'`); n != 7 {
			t.Fatalf("%d audit rows, want 7 (one per password checked)", n)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE details LIKE '%secret%' OR actor LIKE '%secret%' OR details LIKE '%right password%'`); n != 0 {
			t.Errorf("%d audit rows hold a password", n)
		}
		type row struct {
			Email         string `json:"email"`
			Client        string `json:"client"`
			UserID        string `json:"userId"`
			LockedSeconds int64  `json:"lockedSeconds"`
		}
		var rows []row
		for _, d := range b.texts(t, `SELECT details FROM audit WHERE action = 'auth.sign_in_failed' ORDER BY id`) {
			var r row
			if err := json.Unmarshal([]byte(d), &r); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
		}
		if r := rows[0]; r.Email != "signer@example.com" || r.Client != addr || r.UserID != u.ID || r.LockedSeconds != 0 {
			t.Errorf("first row %+v", r)
		}
		if r := rows[1]; r.Email != strings.Repeat("ş", 100) || r.Client != "2001:db8::/64" || r.UserID != "" {
			t.Errorf("unknown email's row %+v, want the email cut to 100 characters and no user", r)
		}
		if r := rows[6]; r.LockedSeconds != 60 {
			t.Errorf("the locking failure's row %+v, want lockedSeconds 60", r)
		}
		if got := b.Text(t, `SELECT json_extract(actor, '$.kind') FROM audit WHERE action = 'auth.sign_in_failed' LIMIT 1`); got != "anonymous" {
			t.Errorf("actor kind %q", got)
		}
	})

	t.Run("MemoryIsBounded", func(t *testing.T) {
		t.Parallel()
		b := newBundle(t)
		identity.BoundThrottle(b.Identity, 100)
		for i := range 250 {
			b.signInCode(t, fmt.Sprintf("u%d@example.com", i), "x", fmt.Sprintf("10.0.%d.%d", i>>8, i&255))
			if i%50 == 49 {
				b.Clock.Advance(time.Second)
			}
		}
		if acc, addrs := identity.ThrottleKeys(b.Identity); acc > 100 || addrs > 100 || acc < 50 {
			t.Errorf("the throttle remembers %d accounts and %d addresses, want at most 100 each", acc, addrs)
		}
		// The quietest keys went first: the latest account is still counted.
		for range 5 {
			b.signInCode(t, "u249@example.com", "x", "")
		}
		if code, _ := b.signInCode(t, "u249@example.com", "x", ""); code != identity.CodeTooManyAttempts {
			t.Errorf("the latest account was forgotten: %q", code)
		}
	})
}

func (b *testBundle) texts(tb testing.TB, query string, args ...any) []string {
	tb.Helper()
	rows, err := b.Store.DB().Query(query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestAddressGroup(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":            "203.0.113.7",
		"::ffff:203.0.113.7":     "203.0.113.7",
		"2001:db8:1:2:3:4:5:6":   "2001:db8:1:2::/64",
		"2001:db8:1:2::1":        "2001:db8:1:2::/64",
		"fe80::1%eth0":           "fe80::/64",
		"::1":                    "::/64",
		"":                       "",
		"@":                      "@",
		strings.Repeat("x", 100): strings.Repeat("x", 64),
	} {
		if got := throttle.AddressGroup(in); got != want {
			t.Errorf("AddressGroup(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckPassword(t *testing.T) {
	for _, tc := range []struct {
		password, code string
	}{
		{"demo-password", ""},
		{"correct horse battery", ""},
		{"Ayşe'nin kedisi", ""},
		{"short", identity.CodePasswordTooShort},
		{"123456789", identity.CodePasswordTooShort},
		{"şifreşifr", identity.CodePasswordTooShort}, // 9 characters, 11 bytes: counted as characters
		{"şifreşifre", identity.CodePasswordCommon},  // 10 characters, and on the list
		{"çğıöşüÇĞİÖ", ""},                           // 10 characters of 2 bytes each
		{strings.Repeat("çğ", 18), ""},               // 72 bytes
		{strings.Repeat("çğ", 18) + "a", identity.CodePasswordTooLong},
		{strings.Repeat("a", 73), identity.CodePasswordTooLong},
		{"aaaaaaaaaa", identity.CodePasswordRepeated},
		{"ğğğğğğğğğğğğ", identity.CodePasswordRepeated},
		{"          ", identity.CodePasswordRepeated},
		{"password123", identity.CodePasswordCommon},
		{"PassWord123", identity.CodePasswordCommon},
		{"QWERTYUIOP", identity.CodePasswordCommon},
		{"1234567890", identity.CodePasswordCommon},
		{"Galatasaray1905", identity.CodePasswordCommon},
		{"correct horse battery staple", identity.CodePasswordCommon},
	} {
		err := identity.CheckPassword(tc.password)
		got := ""
		if e, ok := engine.AsError(err); ok {
			got = e.Code
			if e.Field != "password" {
				t.Errorf("%q: field %q", tc.password, e.Field)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if got != tc.code {
			t.Errorf("CheckPassword(%q) = %q, want %q", tc.password, got, tc.code)
		}
	}
}

func TestAddUserRefusesTrivialPasswords(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	ctx := context.Background()
	for _, pw := range []string{"short", "aaaaaaaaaaaa", "qwertyuiop", "password123"} {
		_, err := b.Identity.AddUser(ctx, b.Site.ID, "new@example.com", "New", policy.Editor, pw, "en")
		if e, ok := engine.AsError(err); !ok || e.Field != "password" {
			t.Errorf("AddUser with %q: %v", pw, err)
		}
	}
	if _, _, err := b.Store.UserByEmail(ctx, "new@example.com"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("a refused account was created: %v", err)
	}
}

// BrowserOf names what a person knows of a User-Agent: the browser and
// the system, nothing else.
func TestBrowserOf(t *testing.T) {
	for ua, want := range map[string][2]string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0":                                                                  {"Firefox", "Linux"},
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0 Safari/537.36 Edg/139.0":                   {"Edge", "Windows"},
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Safari/605.1.15":                      {"Safari", "macOS"},
		"Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0 Mobile Safari/537.36":                                {"Chrome", "Android"},
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1": {"Safari", "iOS"},
		"curl/8.5.0": {"", ""},
		"":           {"", ""},
	} {
		if b, os := identity.BrowserOf(ua); b != want[0] || os != want[1] {
			t.Errorf("BrowserOf(%q) = %q, %q; want %q, %q", ua, b, os, want[0], want[1])
		}
	}
}
