-- The PC keeps its name: every customer machine gets a DNS name (pc-xxxxxxxx.<MACHINE_DNS_SUFFIX>)
-- whose A record the worker points at the machine's address at every start, so Moonlight, the
-- Remote Desktop and DCV files and the browser desktop no longer go stale when the address
-- changes. Labels are random, never derived from the customer, and never given out twice: a row
-- is kept after its machine is gone (released), and the primary key refuses a label seen before.
-- Pairings found on a machine that were not made from the dashboard (Sunshine's own page, or a
-- disk brought back from a kept copy) are listed and can be removed like the others.

CREATE TABLE machine_names (
  label text PRIMARY KEY CHECK (label ~ '^pc-[0-9a-hjkmnp-tv-z]{8}$'),
  user_id uuid NOT NULL REFERENCES users (id),
  vm_id uuid NOT NULL REFERENCES vms (id),
  -- The address our last successful write pointed the record at (null: none yet, or deleted).
  points_to text,
  written_at timestamptz,
  -- Since when writing the record has failed, why, and when an operator was told (once a spell).
  failing_since timestamptz,
  last_error text,
  alerted_at timestamptz,
  -- The record is deleted and the machine gone: the label is never pointed anywhere again.
  released_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX machine_names_vm ON machine_names (vm_id);
-- What the name sweep looks at: names not yet released whose record may need work.
CREATE INDEX machine_names_open ON machine_names (updated_at) WHERE released_at IS NULL;

-- Where a pairing came from: the dashboard (a PIN typed there), or found in Sunshine's client list
-- on the machine. A found one has no PIN and no attempt to report.
ALTER TABLE stream_pairings
  ADD COLUMN origin text NOT NULL DEFAULT 'dashboard' CHECK (origin IN ('dashboard', 'machine'));
-- One row per device Sunshine knows on a machine, while it is paired or being removed.
CREATE UNIQUE INDEX stream_pairings_client ON stream_pairings (vm_id, client_uuid)
  WHERE state IN ('paired', 'removing');
