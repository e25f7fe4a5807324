-- The run an approval request was filed in (RFC-0008 §11.2, §11.5, §11.7,
-- issue 13): an agent's write tool that waits files its request with the
-- run's id, so that get_run lists the run's requests and §11.5 counts them
-- by run; NULL for a person's request or a key outside a run.
--
-- audit_run indexes the audit rows of a run (get_run's trail, §11.5's
-- "indexed COUNT of audit rows by run_id").
ALTER TABLE approvals ADD COLUMN run_id TEXT;
CREATE INDEX approvals_run ON approvals (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX audit_run ON audit (run_id, id) WHERE run_id IS NOT NULL;
