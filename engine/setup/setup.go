// Package setup is Studio's first run (issue 15): on a database that holds
// no site and no person, `studio serve` offers a one-time link, and the
// person who opens it names the site and becomes its Owner. It also makes
// the sites after the first (an Owner's New site…, `studio site add`). The link's
// token lives in this process only, is random and is good until used, like
// Grafana's and Jupyter's first-run tokens: nobody else on the network can
// claim the install, and once it is done the link answers nothing.
package setup

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/public"
	"studio/engine/releases"
)

// ErrInstalled: the database holds a site or a person already.
var ErrInstalled = errors.New("setup: Studio is set up already")

// Refusal codes of a setup form's fields (each with its field).
const (
	CodeBadSiteName  = "bad_site_name"
	CodeBadPublicURL = "bad_public_url"
	// CodePublicURLTaken: another site is served at that host already.
	CodePublicURLTaken = "public_url_taken"
)

// Store is what the first run reads and writes.
type Store interface {
	// Installed reports whether a site or a person exists.
	Installed(ctx context.Context) (bool, error)
	// HasPeople reports whether a person exists.
	HasPeople(ctx context.Context) (bool, error)
	// Install writes the first site, its Owner and the audit row in one
	// transaction, only while neither a site nor a person exists:
	// ErrInstalled otherwise, writing nothing.
	Install(ctx context.Context, site engine.Site, owner engine.User, passwordHash string, audit engine.AuditEntry, now time.Time) error
	// AddSite writes a new site, ownerID's Owner membership of it (none
	// for ""), and its audit row in one transaction.
	AddSite(ctx context.Context, site engine.Site, ownerID string, audit engine.AuditEntry, now time.Time) error
	// Sites lists every site, oldest first.
	Sites(ctx context.Context) ([]engine.Site, error)
}

// Engine is what the first run needs from the engine: its clock.
type Engine interface{ Now() time.Time }

// Setup is the first run of one process: it holds the token it offered.
type Setup struct {
	e     Engine
	store Store
	mu    sync.Mutex
	token string // "" until offered, and again once used
}

// New wires the first run.
func New(e Engine, store Store) *Setup { return &Setup{e: e, store: store} }

// Offer returns the one-time token of this process's setup link, made on
// the first call, when the database holds no site and no person; "" when
// it does.
func (s *Setup) Offer(ctx context.Context) (string, error) {
	installed, err := s.store.Installed(ctx)
	if err != nil || installed {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token == "" {
		b := make([]byte, 32)
		rand.Read(b)
		s.token = base64.RawURLEncoding.EncodeToString(b)
	}
	return s.token, nil
}

// NobodyToSignIn reports a Studio that has a site but no person (made by
// `studio site add` alone): no setup is offered there, and nobody can
// sign in until `studio user add` makes its Owner.
func (s *Setup) NobodyToSignIn(ctx context.Context) (bool, error) {
	installed, err := s.store.Installed(ctx)
	if err != nil || !installed {
		return false, err
	}
	people, err := s.store.HasPeople(ctx)
	return !people, err
}

// Open reports whether token opens the setup: it is the one offered, and
// the database still holds no site and no person. Anything else is as if
// there were no setup at all.
func (s *Setup) Open(ctx context.Context, token string) (bool, error) {
	if !s.holds(token) {
		return false, nil
	}
	installed, err := s.store.Installed(ctx)
	return err == nil && !installed, err
}

func (s *Setup) holds(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token != "" && subtle.ConstantTimeCompare([]byte(s.token), []byte(token)) == 1
}

// Input is what the setup form asks.
type Input struct {
	SiteName  string
	PublicURL string // the public site's base URL, as https://news.example
	TimeZone  string // IANA
	SiteLang  string // the public site's language (engine.Languages)
	OwnerName string
	Email     string
	Password  string
	// OwnerLang is the language the Owner set up Studio in: their own.
	OwnerLang string
}

// Install sets Studio up with token: the site and its Owner, signed in by
// the caller. Every bad field is refused at once (the *engine.Error of
// each, joined; a site field's first) and nothing changes; a token that
// does not open the setup is ErrInstalled, as is a setup someone finished
// first. The token is spent by a setup that succeeds.
func (s *Setup) Install(ctx context.Context, token string, in Input) (engine.User, engine.Site, error) {
	if !s.holds(token) {
		return engine.User{}, engine.Site{}, ErrInstalled
	}
	site, siteErr := newSite(in.SiteName, in.PublicURL, in.TimeZone, in.SiteLang, true)
	owner, hash, ownerErr := identity.NewAccount(in.Email, in.OwnerName, policy.Owner, in.Password, in.OwnerLang)
	if err := errors.Join(siteErr, ownerErr); err != nil {
		return engine.User{}, engine.Site{}, err
	}
	owner.SiteID = site.ID // the Owner's membership of the site
	now := s.e.Now()
	audit := engine.AuditEntry{Action: "studio.setup", SiteID: site.ID, At: now,
		Actor:   release.Actor{Kind: "person", ID: owner.ID, Name: owner.Name},
		Details: map[string]any{"siteName": site.Name, "timeZone": site.TimeZone, "lang": site.Lang, "publicUrl": site.PublicURL}}
	if err := s.store.Install(ctx, site, owner, hash, audit, now); err != nil {
		return engine.User{}, engine.Site{}, err
	}
	s.mu.Lock()
	s.token = ""
	s.mu.Unlock()
	return owner, site, nil
}

// AddSite makes a site for an operator at the command line (`studio site
// add`, for scripted installs), by the setup's rules; publicURL may be
// empty (the public site's absolute URLs then come from serve's
// --public-url). The site and its audit row are written together.
func (s *Setup) AddSite(ctx context.Context, name, publicURL, zone, lang string) (engine.Site, error) {
	return s.addSite(ctx, SiteInput{name, publicURL, zone, lang}, false, "", release.Actor{Kind: "cli", ID: "studio site add"})
}

// SiteInput is a new site's fields, as the setup form and the New site
// page ask them.
type SiteInput struct {
	Name      string
	PublicURL string // the public site's base URL, as https://news.example
	TimeZone  string // IANA
	Lang      string // the public site's language (engine.Languages)
}

// CreateSite makes a new site in Studio (issue 15) for u, an Owner of the
// site they act on (engine.MayAddSite), who becomes its Owner. Its public
// URL is required, and a host another site is served at is refused: the
// public site is chosen by host. Every bad field is refused at once and
// nothing changes.
func (s *Setup) CreateSite(ctx context.Context, u engine.User, in SiteInput) (engine.Site, error) {
	if !engine.MayAddSite(u) {
		return engine.Site{}, engine.Refuse(engine.CodeForbidden, "")
	}
	return s.addSite(ctx, in, true, u.ID, u.Actor())
}

func (s *Setup) addSite(ctx context.Context, in SiteInput, needURL bool, ownerID string, actor release.Actor) (engine.Site, error) {
	site, err := newSite(in.Name, in.PublicURL, in.TimeZone, in.Lang, needURL)
	if err != nil {
		return engine.Site{}, err
	}
	if site.PublicURL != "" {
		sites, err := s.store.Sites(ctx)
		if err != nil {
			return engine.Site{}, err
		}
		for _, other := range sites {
			if public.SameHost(other.PublicURL, site.PublicURL) {
				return engine.Site{}, engine.Refuse(CodePublicURLTaken, "publicUrl")
			}
		}
	}
	now := s.e.Now()
	audit := engine.AuditEntry{Action: "site.created", SiteID: site.ID, At: now, Actor: actor,
		Details: map[string]any{"siteName": site.Name, "timeZone": site.TimeZone, "lang": site.Lang, "publicUrl": site.PublicURL}}
	return site, s.store.AddSite(ctx, site, ownerID, audit, now)
}

// newSite checks a new site's fields: every bad one refused, joined. A
// public URL may be left empty unless needURL.
func newSite(name, publicURL, zone, lang string, needURL bool) (engine.Site, error) {
	var refused []error
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 120 || strings.ContainsFunc(name, unicode.IsControl) {
		refused = append(refused, engine.Refuse(CodeBadSiteName, "siteName"))
	}
	var url string
	if publicURL != "" || needURL {
		var err error
		if url, err = public.ParsePublicURL(publicURL); err != nil {
			refused = append(refused, engine.Refuse(CodeBadPublicURL, "publicUrl"))
		}
	}
	zone = strings.TrimSpace(zone)
	if _, err := localtime.LoadZone(zone); err != nil || zone == "" {
		refused = append(refused, engine.Refuse(releases.CodeUnknownZone, "timeZone"))
	}
	if !engine.ValidLanguage(lang) {
		refused = append(refused, engine.Refuse("bad_language", "siteLang"))
	}
	if len(refused) > 0 {
		return engine.Site{}, errors.Join(refused...)
	}
	site := engine.Site{ID: ids.New("site"), Name: name, TimeZone: zone, Lang: lang, PublicURL: url, Rev: 1}
	site.Hash = engine.SiteHash(site)
	return site, nil
}
