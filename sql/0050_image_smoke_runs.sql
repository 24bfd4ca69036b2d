-- An operator proves a Windows image on a real machine before customers get it: `npm run aws:smoke`
-- launches one machine from the image with the product's own launch code and reads the signed
-- health report that machine sends (POST /api/machine/health accepts it from the run's machine
-- only). One row per run: what was launched, where it reports from, its latest report, how it ended.
CREATE TABLE image_smoke_runs (
  -- The launch's ClientToken, and the key of the machine's secrets (machine_secrets.launch_token).
  id uuid PRIMARY KEY,
  image_id text NOT NULL,
  plan_id text NOT NULL,
  instance_type text NOT NULL,
  instance_id text,
  -- The address reports must come from, known once the instance runs.
  public_ip text,
  started_at timestamptz NOT NULL,
  -- The latest report accepted: its signed time (a replay or an older one changes nothing) and body.
  reported_at timestamptz,
  received_at timestamptz,
  report jsonb,
  -- Set when the run is over (terminated or given up): reports are no longer accepted.
  ended_at timestamptz,
  outcome text CHECK (outcome IN ('passed', 'failed', 'interrupted', 'no-report', 'launch-failed')),
  CHECK ((ended_at IS NULL) = (outcome IS NULL))
);
-- What the health endpoint and the orphan sweep look up: the open run holding an instance.
CREATE UNIQUE INDEX image_smoke_runs_open_instance ON image_smoke_runs (instance_id)
  WHERE ended_at IS NULL AND instance_id IS NOT NULL;
