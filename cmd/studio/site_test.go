package main

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/services"
	"studio/store"
)

// `studio site add` for a scripted install: every bad flag refused in one
// answer with nothing written, then the site as asked, with its audit row;
// a Studio with a site offers no setup link.
func TestSiteAdd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	err := run(ctx, []string{"site", "add", "--name", " ", "--zone", "Europe/Atlantis", "--lang", "de", "--public-url", "news.example", "--data", data},
		nil, io.Discard, nil)
	for _, want := range []string{"--name: Name the site", "--zone: Choose a time zone", "--lang: Studio does not speak", "--public-url: Give the public site's address"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("bad site add: %v, want a line %q", err, want)
		}
	}
	if err := run(ctx, []string{"site", "add", "--name", "K", "--zone", "UTC", "--host", "a.example", "--public-url", "https://b.example", "--data", data},
		nil, io.Discard, nil); err == nil {
		t.Fatal("--host and --public-url together were accepted")
	}
	st, err := store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	if sites, err := st.Sites(ctx); err != nil || len(sites) != 0 {
		t.Fatalf("refused site adds wrote %d sites (%v)", len(sites), err)
	}
	st.Close()

	var out strings.Builder
	if err := run(ctx, []string{"site", "add", "--name", "Kuzey Haber", "--zone", "Europe/Istanbul", "--lang", "tr", "--host", "kuzeyhaber.example", "--data", data},
		nil, &out, nil); err != nil || !strings.Contains(out.String(), "Added the site Kuzey Haber") {
		t.Fatalf("site add: %v, %q", err, out.String())
	}
	if err := run(ctx, []string{"site", "add", "--name", "Güney Haber", "--zone", "UTC", "--data", data}, nil, io.Discard, nil); err != nil {
		t.Fatalf("a site without a public URL: %v", err)
	}
	st, err = store.Open(ctx, filepath.Join(data, "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	sites, err := st.Sites(ctx)
	if err != nil || len(sites) != 2 {
		t.Fatalf("sites %+v, %v", sites, err)
	}
	if s := sites[0]; s.Name != "Kuzey Haber" || s.TimeZone != "Europe/Istanbul" || s.Lang != "tr" || s.PublicURL != "https://kuzeyhaber.example" {
		t.Fatalf("site %+v", s)
	}
	if s := sites[1]; s.PublicURL != "" || s.Lang != "en" {
		t.Fatalf("site %+v", s)
	}
	var audits int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM audit WHERE action = 'site.created'`).Scan(&audits); err != nil || audits != 2 {
		t.Fatalf("%d audit rows, %v", audits, err)
	}
	if installed, err := st.Installed(ctx); err != nil || !installed {
		t.Fatalf("a Studio with sites reads as not installed (%v): serve would offer its setup", err)
	}
	var banner strings.Builder
	listen := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	setup := services.New(st, systemClock{}, nil).Setup
	if err := printSetupLink(ctx, &banner, setup, listen); err != nil || !strings.Contains(banner.String(), "nobody to sign in") ||
		!strings.Contains(banner.String(), "--role owner") {
		t.Fatalf("serve's banner on sites with nobody: %q, %v", banner.String(), err)
	}
	st.Close()
	// With two sites, user add must be told which one the role is on.
	addOwner := func(more ...string) error {
		args := append([]string{"user", "add", "--email", "zeynep@kuzeyhaber.example", "--name", "Zeynep", "--role", "owner", "--password-stdin", "--data", data}, more...)
		return run(ctx, args, strings.NewReader("a long enough secret\n"), io.Discard, nil)
	}
	if err := addOwner(); err == nil || !strings.Contains(err.Error(), "--site: say which site") || !strings.Contains(err.Error(), sites[1].ID+" (Güney Haber)") {
		t.Fatalf("user add without --site on two sites: %v", err)
	}
	if err := addOwner("--site", "site_nope"); err == nil || !strings.Contains(err.Error(), `no site "site_nope"`) {
		t.Fatalf("user add on an unknown site: %v", err)
	}
	if err := addOwner("--site", sites[0].ID); err != nil {
		t.Fatal(err)
	}
	if st, err = store.Open(ctx, filepath.Join(data, "studio.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	zeynep, _, err := st.UserByEmail(ctx, "zeynep@kuzeyhaber.example")
	if err != nil {
		t.Fatal(err)
	}
	if ms, err := st.Memberships(ctx, zeynep.ID); err != nil || len(ms) != 1 || ms[0] != (engine.Membership{SiteID: sites[0].ID, SiteName: sites[0].Name, Role: policy.Owner}) {
		t.Fatalf("memberships %+v, %v; want Owner of %s only", ms, err, sites[0].ID)
	}
	banner.Reset()
	if err := printSetupLink(ctx, &banner, services.New(st, systemClock{}, nil).Setup, listen); err != nil || banner.Len() != 0 {
		t.Fatalf("serve's banner once the Owner exists: %q, %v", banner.String(), err)
	}
}

// addSite adds a site to the data folder, as `studio site add` does.
func addSite(t *testing.T, data string) {
	t.Helper()
	if err := run(context.Background(), []string{"site", "add", "--name", "Kuzey Haber", "--zone", "Europe/Istanbul", "--data", data},
		nil, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
}
