package identity

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/ids"
)

// deployPrefix marks deploy tokens: a personal token never passes for
// one, nor one for a personal token (TokenUser wants tokenPrefix).
const deployPrefix = "studio_deploy_"

// CreateDeployToken mints a deploy token: an operator's tools' secret,
// no person's, which reaches only the operator routes (the scheduler's
// status and a manual tick, /api/admin/…), never a site's content. The
// secret is returned once; only its hash is stored.
func (e *Identity) CreateDeployToken(ctx context.Context, name string) (string, engine.DeployToken, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 120 || strings.ContainsAny(name, "\r\n") {
		return "", engine.DeployToken{}, engine.Refuse("bad_token_name", "name")
	}
	secret := deployPrefix + ids.New("t")[2:] + ids.New("t")[2:] // 32 random characters
	t := engine.DeployToken{ID: ids.New("dep"), Name: name, CreatedAt: e.e.Now()}
	if err := e.store.CreateDeployToken(ctx, t, tokenHash(secret)); err != nil {
		return "", engine.DeployToken{}, err
	}
	return secret, t, nil
}

// DeployToken is the deploy token a secret is; engine.ErrNotFound for
// anything else (a personal token, a revoked or unknown secret). Use is
// recorded at most once a minute.
func (e *Identity) DeployToken(ctx context.Context, secret string) (engine.DeployToken, error) {
	if !strings.HasPrefix(secret, deployPrefix) {
		return engine.DeployToken{}, engine.ErrNotFound
	}
	t, err := e.store.DeployToken(ctx, tokenHash(secret))
	if err != nil {
		return t, err
	}
	now := e.e.Now()
	if t.LastUsed == nil || now.Sub(*t.LastUsed) > time.Minute {
		if err := e.store.TouchDeployToken(ctx, t.ID, now); err != nil && !errors.Is(err, engine.ErrNotFound) {
			return t, err
		}
	}
	return t, nil
}

// RevokeDeployToken ends a deploy token at once; engine.ErrNotFound when
// no such token works.
func (e *Identity) RevokeDeployToken(ctx context.Context, id string) error {
	return e.store.RevokeDeployToken(ctx, id, e.e.Now())
}
