-- The lifecycle executor acts on one machine at a time: before any call to EC2 it takes a short
-- lease on the row (re-reading it), so two workers, a sweep and a job never act on one machine at
-- once, and a worker that dies mid-call holds nothing longer than the lease. Failures of a step
-- are recorded on the row for operators (`last_error`), apart from `problem`, which the customer sees.
ALTER TABLE vms
  ADD COLUMN lease_token uuid,
  ADD COLUMN lease_until timestamptz,
  ADD COLUMN last_error text,
  ADD COLUMN last_error_at timestamptz;

ALTER TABLE pool_instances
  ADD COLUMN lease_token uuid,
  ADD COLUMN lease_until timestamptz;
