package public

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/releases"
)

// Preview links (RFC §7.3): a signed, expiring link that shows a node's
// working copy on the public site whatever its status and gates, so an
// editor can share an embargoed article before it opens. The link is the
// only key: anyone holding it sees that one node until it expires, and the
// site answers it with no-store so no cache keeps it.

// PreviewLifetime is how long a preview link minted in Studio works.
const PreviewLifetime = 24 * time.Hour

func (p *Public) previewKey(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, 32)
	rand.Read(fresh) // never fails (Go ≥ 1.24 crashes inside it instead)
	return p.store.PreviewSecret(ctx, fresh)
}

// PreviewToken signs a preview link for nodeID that works until expires
// (to the second): "<nodeId>.<unix seconds>.<HMAC-SHA256, base64url>".
func (p *Public) PreviewToken(ctx context.Context, nodeID string, expires time.Time) (string, error) {
	key, err := p.previewKey(ctx)
	if err != nil {
		return "", err
	}
	exp := strconv.FormatInt(expires.Unix(), 10)
	return nodeID + "." + exp + "." + base64.RawURLEncoding.EncodeToString(previewMAC(key, nodeID, exp)), nil
}

// VerifyPreview returns the node a preview token names and when it
// expires, if the token is this database's and still works at now;
// engine.ErrNotFound otherwise (forged, altered or expired alike).
func (p *Public) VerifyPreview(ctx context.Context, token string, now time.Time) (string, time.Time, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] == "" || len(token) > 256 {
		return "", time.Time{}, engine.ErrNotFound
	}
	nodeID, exp, sig := parts[0], parts[1], parts[2]
	secs, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || strconv.FormatInt(secs, 10) != exp {
		return "", time.Time{}, engine.ErrNotFound
	}
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return "", time.Time{}, engine.ErrNotFound
	}
	key, err := p.previewKey(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	if !hmac.Equal(mac, previewMAC(key, nodeID, exp)) {
		return "", time.Time{}, engine.ErrNotFound
	}
	expires := time.Unix(secs, 0).UTC()
	if !now.Before(expires) {
		return "", time.Time{}, engine.ErrNotFound
	}
	return nodeID, expires, nil
}

func previewMAC(key []byte, nodeID, exp string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("studio-preview-v1\x00" + nodeID + "\x00" + exp))
	return m.Sum(nil)
}

// PreviewLink mints a preview token for one of the site's pages or articles,
// working for PreviewLifetime from now, for someone who may read content.
func (p *Public) PreviewLink(ctx context.Context, u engine.User, siteID, nodeID string) (string, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return "", err
	}
	if _, err := p.store.Node(ctx, siteID, nodeID); err != nil {
		return "", err
	}
	return p.PreviewToken(ctx, nodeID, p.e.Now().Add(PreviewLifetime))
}

// PreviewedNode is the node a verified preview token names, of whichever
// site holds it: the link is the key, whatever host it is opened on.
func (p *Public) PreviewedNode(ctx context.Context, nodeID string) (releases.NodeDetail, error) {
	siteID, err := p.store.NodeSite(ctx, nodeID)
	if err != nil {
		return releases.NodeDetail{}, err
	}
	return p.PreviewNode(ctx, siteID, nodeID)
}

// PreviewNode is the working copy a preview shows: a node of the site that
// still exists (a deleted one is engine.ErrNotFound).
func (p *Public) PreviewNode(ctx context.Context, siteID, nodeID string) (releases.NodeDetail, error) {
	d, _, err := p.e.NodeWithLive(ctx, siteID, nodeID)
	return d, err
}
