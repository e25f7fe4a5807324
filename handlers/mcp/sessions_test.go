package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// openSessions connects n clients to one MCP server over streamable HTTP
// (the transport /mcp serves, which gives each session its id) and returns
// the server's side of each, in the order they opened, and their clients.
func openSessions(t *testing.T, n int) ([]*sdk.ServerSession, []*sdk.ClientSession) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var servers []*sdk.ServerSession
	initialized := make(chan struct{}, n)
	srv := sdk.NewServer(&sdk.Implementation{Name: "book-test", Version: "1"}, &sdk.ServerOptions{
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			mu.Lock()
			servers = append(servers, req.Session)
			mu.Unlock()
			initialized <- struct{}{}
		}})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	var clients []*sdk.ClientSession
	for range n {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).
			Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		clients = append(clients, cs)
		<-initialized // one at a time: servers[i] is clients[i]'s
	}
	return servers, clients
}

// TestSessionBookKeepsTheCapPerKey: a key holds at most MaxSessionsPerKey
// sessions; the one beyond it closes the key's least recently used (not
// the oldest opened, not the new one, not another key's); a session's
// taint is its own and is reported on every use; a closed session leaves
// the book.
func TestSessionBookKeepsTheCapPerKey(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	tick := func() time.Time { // every booking and use is a second later
		clock.Lock()
		defer clock.Unlock()
		now = now.Add(time.Second)
		return now
	}
	b := newSessionBook(tick)
	ss, clients := openSessions(t, MaxSessionsPerKey+3)
	other := ss[MaxSessionsPerKey+2] // another key's, opened among them
	if closed := b.opened(other, "key_other"); closed != nil {
		t.Fatalf("another key's first session closed %d", len(closed))
	}
	mine := ss[:MaxSessionsPerKey+2]
	for i, s := range mine[:MaxSessionsPerKey] {
		if closed := b.opened(s, "key_one"); closed != nil {
			t.Fatalf("session %d of the cap closed %d", i+1, len(closed))
		}
	}
	if closed := b.opened(mine[0], "key_one"); closed != nil {
		t.Fatal("booking a session again closed others")
	}
	// The first opened is used again: the second is now the least recent.
	if b.used(mine[0].ID()) {
		t.Fatal("a clean session reported tainted")
	}
	closed := b.opened(mine[MaxSessionsPerKey], "key_one")
	if len(closed) != 1 || closed[0] != mine[1] {
		t.Fatalf("beyond the cap closed %v, want the least recently used (the second opened)", ids(closed))
	}
	closed = b.opened(mine[MaxSessionsPerKey+1], "key_one")
	if len(closed) != 1 || closed[0] != mine[2] {
		t.Fatalf("beyond the cap again closed %v, want the third opened", ids(closed))
	}

	// Taint belongs to one session, for as long as it lives.
	b.taint(mine[3].ID())
	if !b.used(mine[3].ID()) {
		t.Error("a tainted session's use did not report its taint")
	}
	if !b.used(mine[3].ID()) {
		t.Error("a tainted session's taint ended with its first use")
	}
	if b.used(mine[4].ID()) || b.used(other.ID()) {
		t.Error("taint reached another session")
	}

	// A session that closes leaves the book, however it closes.
	clients[5].Close()
	waitUntil(t, func() bool { return !b.has(mine[5].ID()) })
	if !b.has(mine[6].ID()) || !b.has(other.ID()) {
		t.Error("closing one session removed others")
	}
}

func (b *sessionBook) has(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.open[id]
	return ok
}

func ids(ss []*sdk.ServerSession) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID())
	}
	return slices.Clip(out)
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not so after 10 s")
		}
	}
}
