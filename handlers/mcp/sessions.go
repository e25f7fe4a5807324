package mcp

import (
	"context"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxSessionsPerKey bounds the MCP sessions one agent key holds open at
// once: a client that reconnects without closing (or a leaked key looping)
// cannot fill the process with sessions. The least recently used go first.
const MaxSessionsPerKey = 32

// SessionIdle closes an MCP session no request has used for this long (a
// scheduled agent reconnects on its next run; a session's taint ends with
// it, so it should not outlive the work it was opened for by much).
const SessionIdle = 10 * time.Minute

// sessionBook is what Studio keeps of each open MCP session, in the
// process that holds it (the SDK's sessions live in memory too): whose key
// opened it, when it was last used, and whether it read visitor-supplied
// text. A person's key has no run, so its session carries §11.4's taint:
// once a tool of the session answered untrusted text, the gate refuses it
// what a tainted run may not do, for as long as the session lives.
type sessionBook struct {
	mu   sync.Mutex
	open map[string]*openSession // by session id
	now  func() time.Time
}

type openSession struct {
	ss       *sdk.ServerSession
	keyID    string
	lastUsed time.Time
	tainted  bool
}

func newSessionBook(now func() time.Time) *sessionBook {
	return &sessionBook{open: map[string]*openSession{}, now: now}
}

// opened books a new session of keyID and returns the key's sessions to
// close so that it keeps at most MaxSessionsPerKey, the least recently used
// first (never the new one). The session leaves the book when it closes,
// however it closes.
func (b *sessionBook) opened(ss *sdk.ServerSession, keyID string) []*sdk.ServerSession {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := ss.ID()
	if _, ok := b.open[id]; ok {
		return nil
	}
	b.open[id] = &openSession{ss: ss, keyID: keyID, lastUsed: b.now()}
	go func() {
		ss.Wait()
		b.mu.Lock()
		delete(b.open, id)
		b.mu.Unlock()
	}()
	var mine []*openSession
	for _, o := range b.open {
		if o.keyID == keyID && o.ss != ss {
			mine = append(mine, o)
		}
	}
	if len(mine) < MaxSessionsPerKey {
		return nil
	}
	slices.SortFunc(mine, func(x, y *openSession) int { return x.lastUsed.Compare(y.lastUsed) })
	var close []*sdk.ServerSession
	for _, o := range mine[:len(mine)-MaxSessionsPerKey+1] {
		delete(b.open, o.ss.ID())
		close = append(close, o.ss)
	}
	return close
}

// used marks the session as used now and reports its taint.
func (b *sessionBook) used(id string) (tainted bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.open[id]; ok {
		o.lastUsed = b.now()
		return o.tainted
	}
	return false
}

// taint marks the session as having read visitor-supplied text.
func (b *sessionBook) taint(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.open[id]; ok {
		o.tainted = true
	}
}

// book is the receiving middleware that books each session as it
// initializes (closing the key's oldest beyond the cap) and marks it used
// on every message.
func (h *Handler) book(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ss, ok := req.GetSession().(*sdk.ServerSession)
		if ok && ss.ID() != "" {
			if method == "initialize" {
				if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
					// Closed at once, before the new session answers: the
					// key never holds more than the cap (a call in flight
					// on the old one is short; its close waits for it).
					for _, old := range h.sessions.opened(ss, extra.TokenInfo.UserID) {
						old.Close()
					}
				}
			} else {
				h.sessions.used(ss.ID())
			}
		}
		return next(ctx, method, req)
	}
}
