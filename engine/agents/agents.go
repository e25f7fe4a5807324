// Package agents holds the agent-key use cases (RFC-0008 §10.1, §10.2,
// §11.2, §11.6 item 4, §11.8): a person mints a key for an external agent
// (a name, a mode cap and scopes within their role; the secret is shown
// once, only its hash is kept), lists and revokes keys; an agent-task
// automation gets its own key (one key, one automation); and Authenticate
// turns a secret into the call's engine.User: the OWNER, with the key's
// scopes narrowed to the owner's current role and the key's mode capped by
// it, on every call (ADR-0018). Every other use case then checks the
// agent's call exactly as the owner's, with User.Agent saying it is an
// agent's.
//
// The package reaches storage through its own narrow Store; every change
// writes its audit row in the same transaction, and a refusal (one
// engine.Error code per rule) changes nothing.
package agents

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/ids"
	"studio/engine/model/automation"
	"studio/engine/policy"
)

// Key is an agent key as Studio keeps it: never its secret.
type Key struct {
	ID     string // agk_…
	SiteID string
	Name   string
	// OwnerID is the person who minted the key: it acts for them.
	OwnerID   string
	OwnerName string
	// Mode is the key's mode cap as chosen (plan, manual, edits, auto); a
	// call's effective mode is this capped by the owner's role (ModeCap).
	Mode policy.Mode
	// Scopes are the scopes chosen at minting, within the owner's role
	// then; a call holds them narrowed to the owner's role now.
	Scopes []policy.Scope
	// AutomationID is set for an automation's own key.
	AutomationID string
	CreatedAt    time.Time
	RevokedAt    *time.Time
	LastUsedAt   *time.Time
}

// Revoked reports whether the key has been revoked.
func (k Key) Revoked() bool { return k.RevokedAt != nil }

// KeyInput is what a person chooses for a new key. Scopes nil or empty:
// the mode's defaults (policy.DefaultAgentScopes).
type KeyInput struct {
	Name   string
	Mode   policy.Mode
	Scopes []policy.Scope
}

// Refusal codes of the agent-key use cases, besides engine's (forbidden,
// not_found).
const (
	// CodeBadKeyName: the name is empty, longer than MaxNameLength or
	// more than one line.
	CodeBadKeyName = "bad_key_name"
	// CodeBadMode: not one of plan, manual, edits, auto (bypass is local
	// only and never a key's, §10.7).
	CodeBadMode = "bad_mode"
	// CodeModeAboveRole: a mode above the person's role's cap (ModeCap).
	CodeModeAboveRole = "mode_above_role"
	// CodeBadAgentScope: a scope no agent key may hold (unknown, a
	// person-only scope, or one outside Scopes).
	CodeBadAgentScope = "bad_agent_scope"
	// CodeScopeAboveRole: a scope the person's role does not hold at the
	// level asked (an Author asking schedules:write, not :own).
	CodeScopeAboveRole = "scope_above_role"
	// CodeNotAgentTask: an automation's own key is for agent tasks only.
	CodeNotAgentTask = "not_agent_task"
	// CodeUnauthorized: the secret is malformed, unknown or revoked, or
	// its owner is gone. One code for all, so a caller learns nothing
	// about which.
	CodeUnauthorized = "unauthorized"
)

// MaxNameLength is the longest key name, in characters.
const MaxNameLength = 120

// SecretPrefix starts every agent-key secret, so a leaked one is
// recognisable (secret scanners, logs).
const SecretPrefix = "sta_"

// secret layout: SecretPrefix + the key id's 16 random characters + "_" +
// 43 characters of base64url: 32 bytes (256 bits) from crypto/rand.
const (
	idPrefix     = "agk"
	idRandLen    = 16
	secretBytes  = 32
	secretRandCh = 43 // base64.RawURLEncoding of 32 bytes
)

// touchEvery is how often a key's last use is written at most.
const touchEvery = time.Minute

// agentScopes are the scopes an agent key may hold: §10.1 KEY_SCOPES for
// schedules and releases, the content scopes the content tools need
// (list_content, get_content, save_draft) and analytics:read for
// broken_links, in policy.Scopes order.
var agentScopes = []policy.Scope{
	policy.ContentRead, policy.ContentWrite, policy.ContentWriteOwn,
	policy.SchedulesRead, policy.SchedulesWrite, policy.SchedulesWriteOwn,
	policy.ReleasesPublish, policy.ReleasesPublishOwn, policy.AnalyticsRead,
}

// Scopes lists every scope an agent key may hold.
func Scopes() []policy.Scope { return slices.Clone(agentScopes) }

// keyModes are the modes a key may have, lowest first.
var keyModes = []policy.Mode{policy.ModePlan, policy.ModeManual, policy.ModeEdits, policy.ModeAuto}

// Modes lists the modes a key may have, lowest first (never bypass).
func Modes() []policy.Mode { return slices.Clone(keyModes) }

func modeRank(m policy.Mode) int { return slices.Index(keyModes, m) }

// ModeCap is the highest mode a role's keys act in (§10.2, §10.3, §11.8).
// auto lets a key schedule a low-risk release without a person, which is
// approving it: releases:publish on every item. Owners, Administrators and
// Editors hold releases:publish on the whole site, so their cap is auto.
// Authors hold it only for their own nodes and Contributors not at all;
// their cap is edits (drafts and reductions free, publishing waits for an
// Editor). Even an Author's own release then gets a second pair of eyes
// when an unattended agent proposes it. The rule reads the role's scopes,
// so a role that changes its releases:publish changes its cap with it.
func ModeCap(role policy.Role) policy.Mode { return policy.AgentModeCap(role) }

// CapMode is m capped by role's ModeCap; an unknown mode fails closed to
// plan.
func CapMode(m policy.Mode, role policy.Role) policy.Mode {
	r := modeRank(m)
	if r < 0 {
		return policy.ModePlan
	}
	if c := ModeCap(role); modeRank(c) < r {
		return c
	}
	return m
}

// OfferedScopes lists the agent scopes role may give a key, each at the
// level the role holds it (an Author is offered schedules:write:own, not
// schedules:write), in Scopes order.
func OfferedScopes(role policy.Role) []policy.Scope {
	var out []policy.Scope
	for _, s := range agentScopes {
		if slices.Contains(policy.Narrow([]policy.Scope{s}, role), s) {
			out = append(out, s)
		}
	}
	return out
}

// Store is what the agent-key use cases need from storage. Package store
// implements it.
type Store interface {
	// MemberByID reads a person as a member of a site, with their role
	// there; engine.ErrNotFound when there is none or they are not one.
	MemberByID(ctx context.Context, siteID, id string) (engine.User, error)
	// Automation reads one automation of a site; engine.ErrNotFound.
	Automation(ctx context.Context, siteID, id string) (automations.Automation, error)
	// CreateAgentKey stores k with the hash of its secret and its audit
	// row in one transaction. For an automation's key, the automation's
	// live key (if any) is revoked at k.CreatedAt in the same transaction:
	// one key, one automation.
	CreateAgentKey(ctx context.Context, k Key, hash string, audit engine.AuditEntry) error
	// AgentKey reads one key of a site, revoked or not; engine.ErrNotFound.
	AgentKey(ctx context.Context, siteID, id string) (Key, error)
	// AgentKeyHash reads the key id and the hash of its secret, only while
	// the key is not revoked; engine.ErrNotFound otherwise.
	AgentKeyHash(ctx context.Context, id string) (Key, string, error)
	// AgentKeys lists a site's keys, newest first, revoked ones too; only
	// ownerID's when it is not empty.
	AgentKeys(ctx context.Context, siteID, ownerID string) ([]Key, error)
	// TouchAgentKey records the key's last use.
	TouchAgentKey(ctx context.Context, id string, at time.Time) error
	// RevokeAgentKey revokes the key at at with its audit row. When brk is
	// set, the key's automation is written as brk.Automation over
	// brk.FromRev (its open run killed when brk.KillRun) with brk.Audit, in
	// the same transaction; engine.ErrConflict when the automation's rev
	// moved, and then nothing is written. A key already revoked is left as
	// it was (nil, nothing written).
	RevokeAgentKey(ctx context.Context, siteID, id string, at time.Time, audit engine.AuditEntry, brk *Break) error
}

// Break is an automation made broken with its key's revocation.
type Break struct {
	Automation automations.Automation // as it is to be written: state broken, rev FromRev+1
	FromRev    int64
	KillRun    bool
	Audit      engine.AuditEntry
}

// Clock is the engine's clock.
type Clock interface{ Now() time.Time }

// Agents is the agent-key use cases.
type Agents struct {
	store Store
	clock Clock
}

// New wires the agent-key use cases.
func New(st Store, clock Clock) *Agents { return &Agents{store: st, clock: clock} }

func refuse(code, field string) *engine.Error { return engine.Refuse(code, field) }

// person refuses an agent's call: keys are made and revoked by people
// (an agent minting keys would escape its own mode).
func person(u engine.User, siteID string) error {
	if err := engine.ActsOn(u, siteID); err != nil {
		return err
	}
	if u.Agent != nil {
		return refuse(engine.CodeForbidden, "")
	}
	return nil
}

func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameLength || strings.ContainsAny(name, "\r\n") || !utf8.ValidString(name) {
		return "", refuse(CodeBadKeyName, "name")
	}
	return name, nil
}

// checkMode refuses a mode a key may not have, or one above role's cap.
func checkMode(m policy.Mode, role policy.Role) error {
	r := modeRank(m)
	switch {
	case r < 0:
		return refuse(CodeBadMode, "mode")
	case r > modeRank(ModeCap(role)):
		return refuse(CodeModeAboveRole, "mode")
	}
	return nil
}

// checkScopes returns the chosen scopes without repeats in Scopes order,
// or the mode's defaults when none are chosen; a scope no agent key may
// hold or one above role is refused, never silently narrowed.
func checkScopes(scopes []policy.Scope, m policy.Mode, role policy.Role) ([]policy.Scope, error) {
	if len(scopes) == 0 {
		return policy.DefaultAgentScopes(m, role), nil
	}
	offered := OfferedScopes(role)
	for _, s := range scopes {
		if !slices.Contains(agentScopes, s) {
			return nil, refuse(CodeBadAgentScope, "scopes")
		}
		if !slices.Contains(offered, s) {
			return nil, refuse(CodeScopeAboveRole, "scopes")
		}
	}
	var out []policy.Scope
	for _, s := range agentScopes {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// newSecret makes a key id and its secret.
func newSecret() (id, secret string) {
	id = ids.New(idPrefix)
	var b [secretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("agents: crypto/rand: " + err.Error()) // never fails on Go ≥ 1.24
	}
	return id, SecretPrefix + id[len(idPrefix)+1:] + "_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// parseSecret returns the key id a secret names, or false when it is not
// shaped like one.
func parseSecret(secret string) (string, bool) {
	rest, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok || len(rest) != idRandLen+1+secretRandCh || rest[idRandLen] != '_' {
		return "", false
	}
	for _, c := range rest[:idRandLen] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return "", false
		}
	}
	if _, err := base64.RawURLEncoding.DecodeString(rest[idRandLen+1:]); err != nil {
		return "", false
	}
	return idPrefix + "_" + rest[:idRandLen], true
}

func hashOf(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func keyDetails(k Key) map[string]any {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	d := map[string]any{"key": k.ID, "name": k.Name, "mode": string(k.Mode), "scopes": scopes, "owner": k.OwnerID}
	if k.AutomationID != "" {
		d["automation"] = k.AutomationID
	}
	return d
}

// Mint makes a key for u (people only) on siteID: in.Name one line of 1 to
// MaxNameLength characters; in.Mode plan, manual, edits or auto, at most
// u's role's cap (ModeCap); in.Scopes agent scopes within u's role, or
// none for the mode's defaults. The secret is returned here once and never
// again; only its hash is kept. Audited as agent.key.create.
func (a *Agents) Mint(ctx context.Context, u engine.User, siteID string, in KeyInput) (Key, string, error) {
	return a.mint(ctx, u, siteID, "", in)
}

// MintForAutomation makes the agent-task automation's own key, owned by u
// (a person who manages automations: its creator, or an Administrator
// taking it over, §11.8), named after the automation. Minting again for
// the same automation revokes its previous key in the same transaction:
// one key, one automation. mode and scopes are checked as Mint checks
// them (nil scopes: the mode's defaults). Audited as agent.key.create
// with the automation's id.
func (a *Agents) MintForAutomation(ctx context.Context, u engine.User, siteID, automationID string, mode policy.Mode, scopes []policy.Scope) (Key, string, error) {
	if err := person(u, siteID); err != nil {
		return Key{}, "", err
	}
	if err := engine.Require(u, siteID, policy.AutomationsManage); err != nil {
		return Key{}, "", err
	}
	au, err := a.store.Automation(ctx, siteID, automationID)
	if err != nil {
		return Key{}, "", err
	}
	if au.Job != automations.JobAgentTask {
		return Key{}, "", refuse(CodeNotAgentTask, "")
	}
	return a.mintForAutomation(ctx, u, siteID, automationID, au.Name, mode, scopes)
}

// MintForNewAutomation is MintForAutomation for an agent task being
// created: the automations use case mints its key before it stores the
// automation (a stored task without a key could never run), so there is
// no row to look up yet and the caller vouches for the job.
func (a *Agents) MintForNewAutomation(ctx context.Context, u engine.User, siteID, automationID, name string, mode policy.Mode, scopes []policy.Scope) (Key, string, error) {
	if err := person(u, siteID); err != nil {
		return Key{}, "", err
	}
	if err := engine.Require(u, siteID, policy.AutomationsManage); err != nil {
		return Key{}, "", err
	}
	return a.mintForAutomation(ctx, u, siteID, automationID, name, mode, scopes)
}

func (a *Agents) mintForAutomation(ctx context.Context, u engine.User, siteID, automationID, name string, mode policy.Mode, scopes []policy.Scope) (Key, string, error) {
	if utf8.RuneCountInString(name) > MaxNameLength {
		name = string([]rune(name)[:MaxNameLength])
	}
	return a.mint(ctx, u, siteID, automationID, KeyInput{Name: name, Mode: mode, Scopes: scopes})
}

// CheckKey is in as Mint would take it for a person of role: the name
// trimmed, the scopes without repeats in Scopes order (the mode's
// defaults when none are chosen), or Mint's refusal. For choices made
// now and minted later (an OAuth grant), which Mint checks again then.
func CheckKey(in KeyInput, role policy.Role) (KeyInput, error) {
	name, err := checkName(in.Name)
	if err != nil {
		return KeyInput{}, err
	}
	if err := checkMode(in.Mode, role); err != nil {
		return KeyInput{}, err
	}
	scopes, err := checkScopes(in.Scopes, in.Mode, role)
	if err != nil {
		return KeyInput{}, err
	}
	return KeyInput{Name: name, Mode: in.Mode, Scopes: scopes}, nil
}

func (a *Agents) mint(ctx context.Context, u engine.User, siteID, automationID string, in KeyInput) (Key, string, error) {
	if err := person(u, siteID); err != nil {
		return Key{}, "", err
	}
	in, err := CheckKey(in, u.Role)
	if err != nil {
		return Key{}, "", err
	}
	id, secret := newSecret()
	now := a.clock.Now()
	k := Key{ID: id, SiteID: siteID, Name: in.Name, OwnerID: u.ID, OwnerName: u.Name, Mode: in.Mode, Scopes: in.Scopes,
		AutomationID: automationID, CreatedAt: now}
	audit := engine.AuditEntry{Action: "agent.key.create", Actor: u.Actor(), SiteID: siteID, At: now, Details: keyDetails(k)}
	if err := a.store.CreateAgentKey(ctx, k, hashOf(secret), audit); err != nil {
		return Key{}, "", err
	}
	return k, secret, nil
}

// SeesAll reports whether u sees and revokes every key of the site (an
// Owner or an Administrator): Keys lists them all and Revoke accepts any;
// anyone else has their own keys only.
func SeesAll(u engine.User) bool { return u.Role == policy.Owner || u.Role == policy.Admin }

// Keys lists the keys u may see on siteID, newest first, revoked ones
// too: a person's own; an Owner's or Administrator's, every key of the
// site. People only.
func (a *Agents) Keys(ctx context.Context, u engine.User, siteID string) ([]Key, error) {
	if err := person(u, siteID); err != nil {
		return nil, err
	}
	owner := u.ID
	if SeesAll(u) {
		owner = ""
	}
	return a.store.AgentKeys(ctx, siteID, owner)
}

// Revoke stops a key at once (people only: its owner, or an Owner or
// Administrator): from this moment Authenticate refuses it, nothing caches
// it. When it is an automation's key, the automation becomes broken
// (key-revoked) in the same transaction and its open run is killed;
// releases a person approved still run (§11.6 item 4). Someone else's key
// is engine.ErrNotFound, as if there were none, so its existence is not
// revealed; revoking twice is no error. Audited as agent.key.revoke (and automation.broken).
func (a *Agents) Revoke(ctx context.Context, u engine.User, siteID, keyID string) error {
	if err := person(u, siteID); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err := a.revoke(ctx, u, siteID, keyID)
		if !errors.Is(err, engine.ErrConflict) || attempt == 2 {
			return err
		}
	}
}

func (a *Agents) revoke(ctx context.Context, u engine.User, siteID, keyID string) error {
	k, err := a.visibleKey(ctx, u, siteID, keyID)
	if err != nil {
		return err
	}
	return a.revokeFor(ctx, u, k, automation.ReasonKeyRevoked)
}

// Key reads one key u may see on siteID (as Keys lists them: their own,
// or any for an Owner or Administrator), revoked or not. Someone else's
// key is engine.ErrNotFound, as if there were none. People only.
func (a *Agents) Key(ctx context.Context, u engine.User, siteID, keyID string) (Key, error) {
	if err := person(u, siteID); err != nil {
		return Key{}, err
	}
	return a.visibleKey(ctx, u, siteID, keyID)
}

func (a *Agents) visibleKey(ctx context.Context, u engine.User, siteID, keyID string) (Key, error) {
	k, err := a.store.AgentKey(ctx, siteID, keyID)
	if err != nil {
		return Key{}, err
	}
	if k.OwnerID != u.ID && !SeesAll(u) {
		return Key{}, engine.ErrNotFound // as if there were none
	}
	return k, nil
}

// revokeFor revokes k, its automation broken for reason in the same act;
// a key revoked already is left as it is.
func (a *Agents) revokeFor(ctx context.Context, u engine.User, k Key, reason automation.PausedReason) error {
	if k.Revoked() {
		return nil
	}
	now := a.clock.Now()
	details := keyDetails(k)
	if reason != automation.ReasonKeyRevoked {
		details["reason"] = string(reason)
	}
	audit := engine.AuditEntry{Action: "agent.key.revoke", Actor: u.Actor(), SiteID: k.SiteID, At: now, Details: details}
	var brk *Break
	if k.AutomationID != "" {
		var err error
		if brk, err = a.breakFor(ctx, u, k.SiteID, k.AutomationID, reason, now); err != nil {
			return err
		}
	}
	return a.store.RevokeAgentKey(ctx, k.SiteID, k.ID, now, audit, brk)
}

// OwnerRemoved is §11.8's "owner removed" for the agent keys, for the
// person-removal use case to call as it removes ownerID from the site
// (an Owner or Administrator, u): every key they own is revoked at once
// (disabled: nothing it signed is honoured from now on, an auto approval
// included) and each agent task whose key it was is broken
// (owner-removed) with its open run killed, until an Administrator takes
// it over.
func (a *Agents) OwnerRemoved(ctx context.Context, u engine.User, siteID, ownerID string) error {
	if err := person(u, siteID); err != nil {
		return err
	}
	if !SeesAll(u) {
		return refuse(engine.CodeForbidden, "")
	}
	keys, err := a.store.AgentKeys(ctx, siteID, ownerID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := a.revokeFor(ctx, u, k, automation.ReasonOwnerRemoved); err != nil {
			return err
		}
	}
	return nil
}

// breakFor is the automation made broken for reason, or nil when its state
// has no such move (already broken, ended) or it is gone.
func (a *Agents) breakFor(ctx context.Context, u engine.User, siteID, automationID string, reason automation.PausedReason, now time.Time) (*Break, error) {
	au, err := a.store.Automation(ctx, siteID, automationID)
	if errors.Is(err, engine.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	from := au.AutomationState()
	next, err := automation.Change(from, automation.StateBroken, reason, automation.ActorSystem)
	if err != nil {
		return nil, nil // broken already, or ended: the key's revocation is enough
	}
	rev := au.Rev
	kill := au.OpenRunID != ""
	au.State, au.PausedReason, au.ConsecutiveFailures = string(next.State), string(next.PausedReason), next.ConsecutiveFailures
	au.DueAt, au.OpenRunID, au.Rev, au.UpdatedAt = nil, "", rev+1, now
	return &Break{Automation: au, FromRev: rev, KillRun: kill, Audit: engine.AuditEntry{Action: "automation.broken",
		Actor: u.Actor(), SiteID: siteID, At: now, Details: map[string]any{"automation": au.ID, "from": string(from.State),
			"to": string(next.State), "reason": string(reason)}}}, nil
}

// Authenticate is the call a secret makes: its owner's engine.User with
// Scopes = the key's scopes narrowed to the owner's role NOW, and Agent
// set (the key, its mode capped by the owner's role now, its automation).
// A malformed, unknown or revoked secret, and a key whose owner is gone,
// are all CodeUnauthorized with no field. The hash is compared in
// constant time; the key's last use is written at most once a minute.
//
// A removed owner's automations become broken (owner-removed) through
// OwnerRemoved, which the person-removal use case calls; until then a key
// whose owner is gone simply stops.
func (a *Agents) Authenticate(ctx context.Context, secret string) (engine.User, error) {
	unauthorized := refuse(CodeUnauthorized, "")
	id, ok := parseSecret(secret)
	if !ok {
		return engine.User{}, unauthorized
	}
	k, hash, err := a.store.AgentKeyHash(ctx, id)
	if errors.Is(err, engine.ErrNotFound) {
		return engine.User{}, unauthorized
	}
	if err != nil {
		return engine.User{}, err
	}
	if subtle.ConstantTimeCompare([]byte(hash), []byte(hashOf(secret))) != 1 {
		return engine.User{}, unauthorized
	}
	u, err := a.keyUser(ctx, k)
	if errors.Is(err, engine.ErrNotFound) {
		return engine.User{}, unauthorized
	}
	if err != nil {
		return engine.User{}, err
	}
	now := a.clock.Now()
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= touchEvery || now.Before(*k.LastUsedAt) {
		if err := a.store.TouchAgentKey(ctx, k.ID, now); err != nil {
			return engine.User{}, err
		}
	}
	return u, nil
}

// keyUser is the caller k acts as now: its owner as they are now on k's
// site, their scopes narrowed to k's, k's mode capped by their role there
// (§10.1); engine.ErrNotFound when the owner is gone or no longer a member
// of the site.
func (a *Agents) keyUser(ctx context.Context, k Key) (engine.User, error) {
	u, err := a.store.MemberByID(ctx, k.SiteID, k.OwnerID)
	if err != nil {
		return engine.User{}, err
	}
	u.Scopes = policy.Narrow(k.Scopes, u.Role)
	if u.Scopes == nil {
		u.Scopes = []policy.Scope{} // narrowed to nothing: never the role's
	}
	u.Agent = &engine.AgentCall{KeyID: k.ID, KeyName: k.Name, Mode: CapMode(k.Mode, u.Role), AutomationID: k.AutomationID}
	return u, nil
}

// KeyUser is the caller the site's key keyID acts as now, as
// Authenticate would make it (the scheduler re-checks an auto approval
// with it at run time, §10.6); engine.ErrNotFound when the key is revoked
// or its owner gone.
func (a *Agents) KeyUser(ctx context.Context, siteID, keyID string) (engine.User, error) {
	k, err := a.store.AgentKey(ctx, siteID, keyID)
	if err != nil {
		return engine.User{}, err
	}
	if k.Revoked() {
		return engine.User{}, engine.ErrNotFound
	}
	return a.keyUser(ctx, k)
}
