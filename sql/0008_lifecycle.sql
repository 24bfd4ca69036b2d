-- A lifecycle step that fails on a machine (an EC2 error in a sweep, a launch refused) is recorded
-- on the row for operators, apart from `problem`, which is what the customer reads.
ALTER TABLE vms
  ADD COLUMN last_error text,
  ADD COLUMN last_error_at timestamptz;

-- Hot spares: warm-pool instances kept running (first boot done, password captured) rather than
-- stopped, so a purchase needs no start at all: only our tags and a Remote Desktop check.
ALTER TABLE pool_instances ADD COLUMN hot boolean NOT NULL DEFAULT false;

-- Ready means connectable: a machine whose instance runs with its password but whose Remote
-- Desktop does not answer yet waits, and the dashboard says so from this moment.
ALTER TABLE vms ADD COLUMN remote_desktop_waiting_since timestamptz;
