-- Gamers can play: every machine gets secrets of its own at launch (its Sunshine web-API
-- credentials and the key that signs its health reports), reports its own health (GPU driver
-- licence, virtual display, Sunshine, DCV, Remote Desktop, disk), and Moonlight devices are paired
-- from the dashboard through the worker, which relays the PIN to that machine's Sunshine.
-- A forged or replayed health report changes nothing but is recorded; pairings on one machine
-- run one at a time (Sunshine hands a PIN to whichever Moonlight is waiting).

-- Made before RunInstances and passed in the user data, so a retried launch (same ClientToken)
-- carries the same ones. Keyed by that ClientToken: a vm id, or a pool_instances id for a spare,
-- whose secrets travel with the instance when a customer claims it. Sealed with AES-256-GCM under
-- APP_SECRET like the Windows password; never logged, never sent to a browser.
CREATE TABLE machine_secrets (
  launch_token uuid PRIMARY KEY,
  sunshine_username text NOT NULL,
  sunshine_password_sealed text NOT NULL,
  health_secret_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The last health report accepted from a machine (one row per machine, replaced by each report).
CREATE TABLE machine_health (
  vm_id uuid PRIMARY KEY REFERENCES vms (id),
  instance_id text NOT NULL,
  -- The signed time of the last accepted report: one not newer than it is a replay.
  reported_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  report jsonb NOT NULL,
  -- SHA-256 of the certificate Sunshine serves, as the machine reported it: pairing pins it.
  sunshine_cert_sha256 text CHECK (sunshine_cert_sha256 ~ '^[0-9a-f]{64}$'),
  -- When the worker last failed to reach Sunshine on this machine, and why (cleared by a success).
  stream_host_unreachable_at timestamptz,
  stream_host_problem text
);

-- Reports refused (bad signature, wrong address, replay, …): what /metrics counts and what the
-- forged-reports alert looks at. Bounded: the endpoint is rate-limited per address.
CREATE TABLE machine_health_refusals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  at timestamptz NOT NULL DEFAULT now(),
  outcome text NOT NULL,
  caller_address text NOT NULL,
  -- What the report said it was, and the machine that is, when known.
  instance_id text,
  vm_id uuid REFERENCES vms (id)
);
CREATE INDEX machine_health_refusals_at ON machine_health_refusals (at);

-- Moonlight devices paired (or being paired) with a machine from the dashboard.
CREATE TABLE stream_pairings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  vm_id uuid NOT NULL REFERENCES vms (id),
  user_id uuid NOT NULL REFERENCES users (id),
  device_name text NOT NULL CHECK (length(device_name) BETWEEN 1 AND 80),
  -- The PIN Moonlight showed, sealed, only until the worker has used it (or given up).
  pin_sealed text,
  -- The machine's address when the customer asked: the worker pairs only while it still has it.
  host text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN (
    'pending', 'sending', 'confirming', 'removing', 'paired', 'refused', 'failed', 'removed')),
  -- core/domain/streaming.ts PAIRING_OUTCOMES, and the sentence the customer was given.
  outcome text,
  message text,
  -- Sunshine's id of the paired client (what unpairing names), and its clients before the PIN.
  client_uuid text,
  clients_before jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  paired_at timestamptz,
  remove_requested_at timestamptz,
  removed_at timestamptz,
  CHECK (state NOT IN ('paired', 'removing', 'removed') OR client_uuid IS NOT NULL)
);
-- One pairing or removal at a time per machine: a second gets a 409 until the first is done.
CREATE UNIQUE INDEX stream_pairings_in_flight ON stream_pairings (vm_id)
  WHERE state IN ('pending', 'sending', 'confirming', 'removing');
CREATE INDEX stream_pairings_vm ON stream_pairings (vm_id, created_at DESC);
