-- A wrong key or a broken image made the warm pool launch and terminate a billed GPU instance
-- every five minutes. Every RunInstances is now a row, so a launch budget per plan's pool and
-- per customer's plan (LAUNCH_BUDGET_PER_HOUR) is counted from rows; and a spare that failed for
-- a reason that repeats puts its plan's pool on hold, one row per hold, its backoff doubling
-- (core/domain/launchBudget.ts), released early when an operator acknowledges its alert.

CREATE TABLE ec2_launches (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('pool', 'machine')),
  plan_id text NOT NULL,
  -- A machine's launches count against the plan it serves, so a replacement counts too.
  subscription_id uuid REFERENCES subscriptions (id),
  vm_id uuid REFERENCES vms (id),
  pool_instance_id uuid REFERENCES pool_instances (id),
  -- launched: an instance exists (billed); failed: EC2 refused; refused: the budget or a hold said no.
  outcome text NOT NULL CHECK (outcome IN ('launched', 'failed', 'refused')),
  instance_id text,
  error_code text,
  at timestamptz NOT NULL
);
CREATE INDEX ec2_launches_pool ON ec2_launches (plan_id, at) WHERE kind = 'pool';
CREATE INDEX ec2_launches_subscription ON ec2_launches (subscription_id, at) WHERE kind = 'machine';

CREATE TABLE pool_holds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  plan_id text NOT NULL,
  cause text NOT NULL CHECK (cause IN ('password-undecryptable', 'image-fault', 'permission-denied', 'unhealthy')),
  detail text NOT NULL,
  level integer NOT NULL CHECK (level >= 0),
  begun_at timestamptz NOT NULL,
  until timestamptz NOT NULL,
  -- The spare whose failure began it (one hold per failed spare, however often it is seen), or
  -- the machine fresh from the image whose health report showed the image's fault (one per machine).
  pool_instance_id uuid UNIQUE REFERENCES pool_instances (id),
  vm_id uuid UNIQUE REFERENCES vms (id),
  alert_id uuid REFERENCES operator_alerts (id)
);
CREATE INDEX pool_holds_plan ON pool_holds (plan_id, begun_at DESC);
