-- A machine step that failed the same way every time was retried at the poll interval with an
-- error line each time, and an operator heard of it only after 30 minutes. Each subject (a
-- machine, a spare, or the whole account when AWS throttles) keeps its current run of failures
-- here: how often, since when, when it may be tried next (backoff with jitter up to 5 minutes,
-- core/domain/stepBackoff.ts), and whether an operator was told (after 5 minutes).

CREATE TABLE step_failures (
  -- 'vm:<id>', 'pool:<id>' or 'account'.
  subject text PRIMARY KEY,
  vm_id uuid REFERENCES vms (id) ON DELETE CASCADE,
  pool_instance_id uuid REFERENCES pool_instances (id) ON DELETE CASCADE,
  -- The EC2 action (DescribeInstances, TerminateInstances…) and AWS's error code.
  action text NOT NULL,
  code text NOT NULL,
  detail text NOT NULL,
  count integer NOT NULL CHECK (count >= 1),
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  next_at timestamptz NOT NULL,
  alerted_at timestamptz
);
CREATE INDEX step_failures_next ON step_failures (next_at);
