package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"studio/engine"
	"studio/engine/releases"
)

func insertRequest(ctx context.Context, tx *sql.Tx, q *releases.ApprovalRequest) error {
	by, err := jsonText(q.RequestedBy)
	if err != nil {
		return err
	}
	var at any
	if q.ExecuteAt != nil {
		at = instant(*q.ExecuteAt)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO approvals (id, site_id, release_id, state_hash, args_hash, execute_at,
		requested_by, status, created_at, run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''))`,
		q.ID, q.SiteID, q.ReleaseID, q.StateHash, q.ArgsHash, at, by, q.Status, instant(q.CreatedAt), q.RunID); err != nil {
		return fmt.Errorf("store: insert approval request: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE releases SET request_id = ? WHERE id = ?`, q.ID, q.ReleaseID); err != nil {
		return fmt.Errorf("store: link approval request: %w", err)
	}
	return nil
}

const approvalColumns = `id, site_id, release_id, state_hash, args_hash, execute_at, requested_by, status,
	decided_by, decided_at, COALESCE(reason, ''), created_at, COALESCE(run_id, '')`

func scanApproval(row interface{ Scan(...any) error }) (releases.ApprovalRequest, error) {
	var q releases.ApprovalRequest
	var at, decidedBy, decidedAt sql.NullString
	var by, created string
	err := row.Scan(&q.ID, &q.SiteID, &q.ReleaseID, &q.StateHash, &q.ArgsHash, &at, &by, &q.Status,
		&decidedBy, &decidedAt, &q.Reason, &created, &q.RunID)
	if err != nil {
		return q, notFound(err)
	}
	if err := json.Unmarshal([]byte(by), &q.RequestedBy); err != nil {
		return q, fmt.Errorf("store: approval %s requester: %w", q.ID, err)
	}
	if decidedBy.Valid {
		if err := fromJSON(decidedBy, &q.DecidedBy); err != nil {
			return q, err
		}
	}
	if q.ExecuteAt, err = parseInstant(at); err != nil {
		return q, err
	}
	if q.DecidedAt, err = parseInstant(decidedAt); err != nil {
		return q, err
	}
	q.CreatedAt, err = mustInstant(created)
	return q, err
}

// waitingOrder is releases.WaitingOrder in SQL: requests without a time
// first, then by time (instants are stored as sortable UTC strings), then
// the oldest.
const waitingOrder = ` ORDER BY execute_at IS NOT NULL, execute_at, created_at, id`

// WaitingApprovals lists a site's waiting requests in releases.WaitingOrder.
func (s *Store) WaitingApprovals(ctx context.Context, siteID string) ([]releases.ApprovalRequest, error) {
	return s.queryApprovals(ctx, `site_id = ? AND status = 'waiting'`+waitingOrder, siteID)
}

// queryApprovals reads the requests matching where, in one statement.
func (s *Store) queryApprovals(ctx context.Context, where string, args ...any) ([]releases.ApprovalRequest, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: approvals: %w", err)
	}
	defer rows.Close()
	var out []releases.ApprovalRequest
	for rows.Next() {
		q, err := scanApproval(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// ApprovalRequest returns one request of a site.
func (s *Store) ApprovalRequest(ctx context.Context, siteID, id string) (releases.ApprovalRequest, error) {
	return scanApproval(s.read.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE site_id = ? AND id = ?`, siteID, id))
}

// DecideApproval records an approver's decision on a waiting request and
// applies the release's change, in one transaction.
func (s *Store) DecideApproval(ctx context.Context, d releases.Decision) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return decideApproval(ctx, tx, d) })
}

// decideApproval writes d in tx; engine.ErrConflict when its request is no
// longer waiting.
func decideApproval(ctx context.Context, tx *sql.Tx, d releases.Decision) error {
	by, err := jsonText(d.By)
	if err != nil {
		return err
	}
	ok, err := one(tx.ExecContext(ctx, `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = NULLIF(?, '')
		WHERE id = ? AND status = 'waiting'`, d.Status, by, instant(d.Release.Audit.At), d.Reason, d.ApprovalID))
	if err != nil {
		return fmt.Errorf("store: decide approval: %w", err)
	}
	if !ok {
		return engine.ErrConflict
	}
	return changeRelease(ctx, tx, d.Release)
}

// FirstWaitingApprovals is the first limit waiting requests of a site in
// releases.WaitingOrder and how many wait in all: an index-only count and a
// short read.
func (s *Store) FirstWaitingApprovals(ctx context.Context, siteID string, limit int) ([]releases.ApprovalRequest, int, error) {
	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM approvals WHERE site_id = ? AND status = 'waiting'`,
		siteID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: approvals: %w", err)
	}
	if total == 0 || limit <= 0 {
		return nil, total, nil
	}
	out, err := s.queryApprovals(ctx, `site_id = ? AND status = 'waiting'`+waitingOrder+` LIMIT ?`, siteID, limit)
	return out, total, err
}

// WaitingApprovalsOf is the waiting requests of the given releases of a
// site (at most one each), in one statement.
func (s *Store) WaitingApprovalsOf(ctx context.Context, siteID string, releaseIDs []string) ([]releases.ApprovalRequest, error) {
	if len(releaseIDs) == 0 {
		return nil, nil
	}
	ids, err := json.Marshal(releaseIDs)
	if err != nil {
		return nil, err
	}
	return s.queryApprovals(ctx, `release_id IN (SELECT value FROM json_each(?)) AND status = 'waiting' AND +site_id = ?`,
		string(ids), siteID)
}
