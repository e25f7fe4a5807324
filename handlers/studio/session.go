package studio

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"

	"studio/engine"
)

// Session reads the request's Studio session for the JSON API and /health,
// which act for the person signed in to Studio's pages: the person, while
// the session lives (sessionUser), and the session's CSRF token, which the
// API wants in X-CSRF-Token on every state-changing request;
// engine.ErrNotFound for nobody. The router must have loaded the session.
func (h *Handler) Session(ctx context.Context) (engine.User, string, error) {
	u, err := h.sessionUser(ctx)
	return u, h.sessions.GetString(ctx, keyCSRF), err
}

// sessionUser is the person the session is signed in as, while it lives:
// not signed out from another browser, at the account's session epoch
// (identity.SessionUser). A session that has ended forgets its person;
// engine.ErrNotFound for nobody.
func (h *Handler) sessionUser(ctx context.Context) (engine.User, error) {
	id := h.sessions.GetString(ctx, keyUser)
	if id == "" {
		return engine.User{}, engine.ErrNotFound
	}
	u, err := h.identity.SessionUser(ctx, id, h.sessions.GetString(ctx, keySession), int64(h.sessions.GetInt(ctx, keyEpoch)))
	if errors.Is(err, engine.ErrNotFound) {
		h.sessions.Remove(ctx, keyUser)
	}
	return u, err
}

// hashedPrefix marks a stored session key as a token's hash. scs tokens are
// base64url and never contain a colon, so a stored key is never mistaken
// for a token, nor a token for a stored key.
const hashedPrefix = "sha256:"

// HashedStore keeps sessions in store under the SHA-256 of their token, as
// access tokens are kept: whoever reads the database learns no cookie that
// signs anyone in. Find, Commit and Delete are all scs needs; it is not an
// scs.IterableStore, so SessionManager.Iterate is not available on it.
func HashedStore(store scs.Store) scs.Store { return hashedStore{store} }

type hashedStore struct{ plain scs.Store }

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hashedPrefix + hex.EncodeToString(sum[:])
}

func (s hashedStore) Find(token string) ([]byte, bool, error) {
	return s.plain.Find(hashToken(token))
}

func (s hashedStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.plain.Commit(hashToken(token), b, expiry)
}

func (s hashedStore) Delete(token string) error { return s.plain.Delete(hashToken(token)) }

// MigrateSessionTokens moves every live session that store still keeps
// under its plain token to the token's hash, so people stay signed in when
// Studio starts hashing; it is a no-op once done. The row's new expiry is
// its absolute deadline, or idle from now when that comes first. It returns
// how many it moved.
func MigrateSessionTokens(store scs.IterableStore, codec scs.Codec, idle time.Duration, now time.Time) (int, error) {
	plain, ok := store.(scs.Store)
	if !ok {
		return 0, errors.New("studio: the session store cannot delete")
	}
	all, err := store.All()
	if err != nil {
		return 0, err
	}
	moved := 0
	for token, b := range all {
		if strings.HasPrefix(token, hashedPrefix) {
			continue
		}
		deadline, _, err := codec.Decode(b)
		if _, bad := base64.RawURLEncoding.DecodeString(token); err != nil || bad != nil {
			// Not a session scs could load: drop it rather than keep it.
			if err := plain.Delete(token); err != nil {
				return moved, err
			}
			continue
		}
		expiry := deadline
		if idle > 0 && now.Add(idle).Before(expiry) {
			expiry = now.Add(idle)
		}
		if err := plain.Commit(hashToken(token), b, expiry); err != nil {
			return moved, err
		}
		if err := plain.Delete(token); err != nil {
			return moved, err
		}
		moved++
	}
	return moved, nil
}
