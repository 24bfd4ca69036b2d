-- A machine whose genuine health reports are refused because its clock runs ahead of ours
-- (beyond the skew allowed): its card says so until a report of it is accepted again. The
-- latest observation per machine.
CREATE TABLE machine_clocks (
  vm_id uuid PRIMARY KEY REFERENCES vms (id),
  ahead_seconds integer NOT NULL CHECK (ahead_seconds > 0),
  observed_at timestamptz NOT NULL
);
