-- Cloud PCs on EC2 (issue 5). A vm row is the customer's machine: created by vm-provision when a
-- subscription activates, moved through its lifecycle only by conditional transitions (so a
-- replayed job changes nothing), with a timestamp per transition. Its id is the EC2 ClientToken
-- of its launch: a retried launch can never create a second instance. A renewal re-points the
-- same row (same instance, same disk) at the new subscription. Usage seconds accrue only while
-- the row is `running`, up to `usage_counted_at`; the dashboard adds the time since then.
-- Warm-pool instances are launched ahead (first boot done, password captured) and kept stopped
-- so a purchase only needs a start. Notices record which customer mails went out (sent once);
-- operator alerts and orphan sightings are what `npm run alerts` lists.

CREATE TABLE vms (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  -- The plan the machine serves now; a renewal moves it to the new subscription.
  subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  subscription_attached_at timestamptz NOT NULL DEFAULT now(),
  -- The machine as built: catalogue plan (its AMI), instance type and root volume size.
  plan_id text NOT NULL,
  instance_type text NOT NULL,
  storage_gb integer NOT NULL CHECK (storage_gb > 0),
  state text NOT NULL DEFAULT 'requested' CHECK (state IN (
    'requested', 'provisioning', 'starting', 'running', 'stopping', 'stopped',
    'terminating', 'terminated', 'error')),
  state_changed_at timestamptz NOT NULL DEFAULT now(),
  -- Why the last transition happened: 'user', 'out-of-hours', 'plan-expired', 'shut-down', …
  state_reason text,
  -- What went wrong last, in words the customer may read (never provider details or secrets).
  problem text,
  -- How the instance was obtained: launched for this VM, or claimed from the warm pool.
  source text CHECK (source IN ('launch', 'pool')),
  instance_id text UNIQUE,
  image_id text,
  subnet_id text,
  availability_zone text,
  -- Known only while running; a new one after every start.
  public_ip text,
  -- The Windows administrator password, AES-256-GCM under APP_SECRET (core/crypto.ts).
  password_encrypted text,
  password_ready_at timestamptz,
  launch_attempts integer NOT NULL DEFAULT 0,
  start_attempts integer NOT NULL DEFAULT 0,
  usage_seconds double precision NOT NULL DEFAULT 0 CHECK (usage_seconds >= 0),
  usage_counted_at timestamptz,
  requested_at timestamptz NOT NULL DEFAULT now(),
  provision_started_at timestamptz,
  launched_at timestamptz,
  ready_at timestamptz,
  start_requested_at timestamptz,
  started_at timestamptz,
  stop_requested_at timestamptz,
  stopped_at timestamptz,
  terminate_requested_at timestamptz,
  terminated_at timestamptz,
  error_at timestamptz,
  -- When the customer was told provisioning is taking longer than promised.
  delayed_at timestamptz,
  synced_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (state NOT IN ('running', 'stopping', 'stopped', 'starting') OR instance_id IS NOT NULL),
  CHECK (state <> 'running' OR usage_counted_at IS NOT NULL)
);
-- One machine per customer at a time (a new plan on another machine type retires the old one first).
CREATE UNIQUE INDEX vms_one_live_per_user ON vms (user_id) WHERE state NOT IN ('terminating', 'terminated', 'error');
CREATE INDEX vms_user ON vms (user_id, created_at DESC);
CREATE INDEX vms_subscription ON vms (subscription_id);
-- The sync sweep: live machines, least recently synced first.
CREATE INDEX vms_sync ON vms (synced_at NULLS FIRST) WHERE state NOT IN ('terminated', 'error');
CREATE INDEX vms_in_use ON vms (instance_type) WHERE state NOT IN ('terminating', 'terminated', 'error');

-- Each stretch of time a VM was running (what usage accrual counted), for usage history.
CREATE TABLE vm_run_segments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  vm_id uuid NOT NULL REFERENCES vms (id),
  subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  CHECK (ended_at IS NULL OR ended_at >= started_at)
);
CREATE UNIQUE INDEX vm_run_segments_open ON vm_run_segments (vm_id) WHERE ended_at IS NULL;
CREATE INDEX vm_run_segments_vm ON vm_run_segments (vm_id, started_at DESC);

-- Instances launched ahead of demand: first boot done, password captured, then stopped. The id
-- is the launch's ClientToken. `claimed` rows stay as the record of which VM got the instance.
CREATE TABLE pool_instances (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  plan_id text NOT NULL,
  instance_type text NOT NULL,
  storage_gb integer NOT NULL CHECK (storage_gb > 0),
  image_id text NOT NULL,
  state text NOT NULL DEFAULT 'launching'
    CHECK (state IN ('launching', 'stopping', 'ready', 'claimed', 'failed')),
  instance_id text UNIQUE,
  subnet_id text,
  availability_zone text,
  password_encrypted text,
  launch_attempts integer NOT NULL DEFAULT 0,
  problem text,
  vm_id uuid REFERENCES vms (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  launched_at timestamptz,
  first_boot_at timestamptz,
  ready_at timestamptz,
  claimed_at timestamptz,
  failed_at timestamptz,
  synced_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (state <> 'ready' OR (instance_id IS NOT NULL AND password_encrypted IS NOT NULL)),
  CHECK (state <> 'claimed' OR vm_id IS NOT NULL)
);
CREATE INDEX pool_instances_ready ON pool_instances (plan_id, ready_at) WHERE state = 'ready';
CREATE INDEX pool_instances_filling ON pool_instances (plan_id) WHERE state IN ('launching', 'stopping', 'ready');

-- Customer mails that must go out once: hour alerts (80 %, 100 %), expiry reminders (3 days,
-- 1 day), plan expired, machine deleted, provisioning delayed or failed. The key names the
-- event (e.g. 'hours-80:<subscription id>'); inserting it is the decision to send.
CREATE TABLE vm_notices (
  key text PRIMARY KEY,
  kind text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id),
  subscription_id uuid REFERENCES subscriptions (id),
  vm_id uuid REFERENCES vms (id),
  sent_at timestamptz NOT NULL DEFAULT now()
);

-- What an operator must look at (`npm run alerts`): provisioning late or failed, quota hit,
-- undecryptable passwords, instances nobody owns. One open alert per problem; repeats count.
CREATE TABLE operator_alerts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL,
  dedupe_key text NOT NULL,
  message text NOT NULL,
  vm_id uuid REFERENCES vms (id),
  instance_id text,
  details jsonb,
  occurrences integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz
);
CREATE UNIQUE INDEX operator_alerts_open ON operator_alerts (dedupe_key) WHERE resolved_at IS NULL;
CREATE INDEX operator_alerts_recent ON operator_alerts (created_at DESC);

-- Instances tagged as this deployment's that no row owns: reported when first seen, terminated
-- once still unowned after the grace period.
CREATE TABLE ec2_orphans (
  instance_id text PRIMARY KEY,
  state text NOT NULL,
  tags jsonb NOT NULL DEFAULT '{}',
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  terminated_at timestamptz,
  -- Seen owned again (a row adopted it): no longer an orphan.
  cleared_at timestamptz
);

-- EC2's latest word on capacity per instance type, for the capacity check before money is taken.
CREATE TABLE ec2_capacity (
  instance_type text PRIMARY KEY,
  insufficient_at timestamptz,
  available_at timestamptz,
  message text
);
