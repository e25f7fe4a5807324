package store

import (
	"context"
	"crypto/rand"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Several instances on one PostgreSQL database share two things besides
// the data: the database's clock, which decides what is due (one clock,
// whatever each machine's says), and wake-ups, so that a release scheduled
// or moved on one instance wakes every instance's ticker at once rather
// than at its next minute. Wake-ups travel as NOTIFY on one channel,
// outside any transaction: the engine pokes after its writes commit. On
// SQLite there is one process per database file and neither is needed.

// wakeChannel is the channel the instances LISTEN on.
const wakeChannel = "studio_wake"

// wakeups are this instance's side of the channel: its id (a NOTIFY's
// payload, so it ignores its own), the address to listen with, and a
// one-slot queue that coalesces announcements.
type wakeups struct {
	id      string
	config  *pgx.ConnConfig
	pending chan struct{}
}

func newWakeups(config *pgx.ConnConfig) *wakeups {
	return &wakeups{id: rand.Text(), config: config, pending: make(chan struct{}, 1)}
}

// DatabaseTime is the database server's clock now, for the instances'
// one clock. ok is false on SQLite, whose clock is this machine's.
func (s *Store) DatabaseTime(ctx context.Context) (t time.Time, ok bool, err error) {
	if !s.pg {
		return time.Time{}, false, nil
	}
	err = s.read.QueryRowContext(ctx, `SELECT clock_timestamp()`).Scan(&t)
	return t, err == nil, err
}

// Announce tells the other instances that something was scheduled or moved,
// so their tickers look again now. It never blocks: announcements made
// while one is on its way go out as one. A no-op on SQLite.
func (s *Store) Announce() {
	if s.wake == nil {
		return
	}
	select {
	case s.wake.pending <- struct{}{}:
	default:
	}
}

// Wakeups sends this instance's announcements and calls woken for every
// other instance's, until ctx ends. It listens on a connection of its own
// (LISTEN holds it), reconnects after losing it, and calls woken once each
// time it starts listening, since a wake-up may have passed before. It
// returns at once on SQLite.
func (s *Store) Wakeups(ctx context.Context, woken func(), log *slog.Logger) {
	if s.wake == nil {
		return
	}
	var announcer sync.WaitGroup
	announcer.Go(func() { s.announce(ctx, log) })
	defer announcer.Wait() // both end with ctx, before Wakeups returns
	for wait := time.Second; ctx.Err() == nil; {
		listened, err := s.listen(ctx, woken)
		if ctx.Err() != nil {
			return
		}
		if listened { // a connection that worked starts the back-off anew
			wait = time.Second
		}
		log.Warn("schedules: lost the wake-ups of the other instances; listening again", "err", err, "in", wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// listen holds one LISTEN connection until it fails or ctx ends; listened
// says whether it got as far as listening.
func (s *Store) listen(ctx context.Context, woken func()) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.wake.config)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+wakeChannel); err != nil {
		return false, err
	}
	woken()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		if n.Payload != s.wake.id {
			woken()
		}
	}
}

// announce sends the queued announcements, one NOTIFY each.
func (s *Store) announce(ctx context.Context, log *slog.Logger) {
	for {
		select {
		case <-s.wake.pending:
		case <-ctx.Done():
			return
		}
		if _, err := s.read.ExecContext(ctx, `SELECT pg_notify(?, ?)`, wakeChannel, s.wake.id); err != nil && ctx.Err() == nil {
			// The others still look at their next minute at the latest.
			log.Warn("schedules: could not wake the other instances", "err", err)
		}
	}
}
