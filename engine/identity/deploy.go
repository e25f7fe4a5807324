package identity

import (
	"context"
	"errors"
	"strings"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/model/release"
)

// deployPrefix marks deploy tokens: a personal token never passes for
// one, nor one for a personal token (TokenUser wants tokenPrefix).
const deployPrefix = "studio_deploy_"

// Operator is the actor of the deploy tokens' audit rows: whoever runs
// `studio token` on the database, a machine's operator rather than a
// person Studio knows.
var Operator = release.Actor{Kind: "system", ID: "sys_operator", Name: "Operator"}

// CreateDeployToken mints a deploy token: an operator's tools' secret,
// no person's, which reaches only the operator routes (the scheduler's
// status and a manual tick, /api/admin/…), never a site's content. The
// secret is returned once; only its hash is stored.
func (e *Identity) CreateDeployToken(ctx context.Context, name string) (string, engine.DeployToken, error) {
	name, err := tokenName(name)
	if err != nil {
		return "", engine.DeployToken{}, err
	}
	secret := newSecret(deployPrefix)
	t := engine.DeployToken{ID: ids.New("dep"), Name: name, CreatedAt: e.e.Now()}
	a := engine.AuditEntry{Action: "deploy_token.create", Actor: Operator, At: t.CreatedAt,
		Details: map[string]any{"token": t.ID, "name": t.Name}}
	if err := e.store.CreateDeployToken(ctx, t, tokenHash(secret), a); err != nil {
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
	if now := e.e.Now(); touchDue(t.LastUsed, now) {
		if err := e.store.TouchDeployToken(ctx, t.ID, now); err != nil && !errors.Is(err, engine.ErrNotFound) {
			return t, err
		}
	}
	return t, nil
}

// RevokeDeployToken ends a deploy token at once; engine.ErrNotFound when
// no such token works. Both it and CreateDeployToken leave an audit row
// with no site: a deploy token reaches every site's scheduler.
func (e *Identity) RevokeDeployToken(ctx context.Context, id string) error {
	return e.store.RevokeDeployToken(ctx, id, engine.AuditEntry{Action: "deploy_token.revoke", Actor: Operator,
		At: e.e.Now(), Details: map[string]any{"token": id}})
}
