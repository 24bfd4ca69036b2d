-- EC2 schedules events on the hardware a machine runs on (retirement, maintenance): read with
-- DescribeInstanceStatus and acted on before they happen (a running machine is moved by a stop
-- and start while nobody is connected, or before the deadline). One row per machine and event.

CREATE TABLE machine_events (
  vm_id uuid NOT NULL REFERENCES vms (id),
  event_id text NOT NULL,
  instance_id text NOT NULL,
  code text NOT NULL,
  description text,
  not_before timestamptz NOT NULL,
  not_after timestamptz,
  seen_at timestamptz NOT NULL,
  -- When we asked for the stop that moves it (the start follows by itself).
  moved_at timestamptz,
  -- When EC2 stopped listing it (moved away, or over).
  done_at timestamptz,
  PRIMARY KEY (vm_id, event_id)
);
CREATE INDEX machine_events_open ON machine_events (vm_id) WHERE done_at IS NULL;
