-- Agent-task automations and their run windows (RFC-0008 §4.3, §4.4,
-- §11.2–§11.6, issue 13).
--
--   automations.task          JSON automations.Task: instructions, modeCap,
--                             readsUntrustedText, windowMinutes, budget, the
--                             id of the automation's own key and its scopes;
--                             NULL for built-in jobs. The key's secret is
--                             never stored here.
--   automations.manual_window JSON {opensAt, closesAt}: the window a
--                             person's Run now opened; NULL otherwise.
--   schedule_runs.ends_at     when an agent run ends: min(window end, start
--                             + budget.maxMinutes); a run still open then is
--                             failed not_ended by the tick.
--   schedule_runs.ledger      JSON automation.RunLedger: usage, taint,
--                             reduce calls and consecutive refusals.
--   schedule_runs.mode        the run's effective mode (policy.RunMode).
--   schedule_runs.key_id      the key that began the run.
--   schedule_runs.summary     end_run's plain-text summary (≤ 2,000).
ALTER TABLE automations ADD COLUMN task TEXT;
ALTER TABLE automations ADD COLUMN manual_window TEXT;
ALTER TABLE schedule_runs ADD COLUMN ends_at TEXT;
ALTER TABLE schedule_runs ADD COLUMN ledger TEXT;
ALTER TABLE schedule_runs ADD COLUMN mode TEXT;
ALTER TABLE schedule_runs ADD COLUMN key_id TEXT;
ALTER TABLE schedule_runs ADD COLUMN summary TEXT;
