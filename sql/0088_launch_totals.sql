-- The launch ledger (ec2_launches, 0060) is read only within a launch budget's window (an hour),
-- yet gained a row for every launch forever. The hourly housekeeping sweep now deletes rows past
-- LAUNCH_LEDGER_RETENTION_MS (core/domain/launchBudget.ts). /metrics counts launches since the
-- start (legend_ec2_launches_total, a counter, which must never go down), so each deleted row is
-- first added here, in the statement that deletes it: the counter is these totals plus the rows
-- still in the ledger.
CREATE TABLE ec2_launch_totals (
  kind text NOT NULL CHECK (kind IN ('pool', 'machine')),
  plan_id text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('launched', 'failed', 'refused')),
  error_code text,
  count bigint NOT NULL CHECK (count >= 0),
  -- A launch that was made has no error code: one row for it per plan and kind as well.
  UNIQUE NULLS NOT DISTINCT (kind, plan_id, outcome, error_code)
);

-- The sweep deletes the oldest rows in batches.
CREATE INDEX ec2_launches_at ON ec2_launches (at);
