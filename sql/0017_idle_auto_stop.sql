-- Idle auto-stop: a machine nobody uses (no session, CPU, GPU and network quiet for the
-- customer's window) is stopped so the hour bank does not drain. `vm_idle` holds the customer's
-- choice, the last "Keep it running" and the warning of the current idle episode (sent once;
-- cleared when the machine is used again). No row means the default window (on by default).
-- `vm_idle_stops` records each auto-stop with what the hours saved are computed from.
CREATE TABLE vm_idle (
  vm_id uuid PRIMARY KEY REFERENCES vms (id),
  -- 0 is off; otherwise the window in minutes.
  minutes integer NOT NULL CHECK (minutes IN (0, 15, 30, 60)),
  kept_at timestamptz,
  warned_at timestamptz,
  stop_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE vm_idle_stops (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  vm_id uuid NOT NULL REFERENCES vms (id),
  user_id uuid NOT NULL REFERENCES users (id),
  subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  idle_since timestamptz NOT NULL,
  stopped_at timestamptz NOT NULL,
  plan_ends_at timestamptz,
  -- The plan's hours left at the stop: the most the stop can have saved.
  remaining_seconds double precision NOT NULL CHECK (remaining_seconds >= 0)
);
CREATE INDEX vm_idle_stops_user ON vm_idle_stops (user_id, stopped_at DESC);
