-- The usage page (/progress) shows each running machine's CPU and GPU utilisation. CloudWatch
-- has them, but the page polls every second and must never call AWS: the `metrics-pull` cron
-- fetches them for every running machine in batched GetMetricData calls and keeps them here.
-- A sample is one period's average (percent) keyed by machine, metric and period start, so a
-- pull that overlaps the previous one, or runs twice, rewrites the same rows. Samples are kept
-- METRICS_RETENTION_DAYS (the pull deletes older ones). Running time itself is not here: it is
-- vm_run_segments (0006), which the daily and hourly charts read.

CREATE TABLE vm_metric_samples (
  vm_id uuid NOT NULL REFERENCES vms (id) ON DELETE CASCADE,
  -- 'cpu': AWS/EC2 CPUUtilization; 'gpu': LegendCloud/GPU GPUUtilization (our Windows poller).
  metric text NOT NULL CHECK (metric IN ('cpu', 'gpu')),
  -- Start of the period the value averages.
  at timestamptz NOT NULL,
  value double precision NOT NULL CHECK (value >= 0 AND value <= 100),
  pulled_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (vm_id, metric, at)
);
-- The retention sweep.
CREATE INDEX vm_metric_samples_at ON vm_metric_samples (at);

-- metrics-pull asks which machines ran since the start of its window: the open segments have
-- their own index (0006); this one finds the recently closed ones without reading them all.
CREATE INDEX vm_run_segments_ended ON vm_run_segments (ended_at) WHERE ended_at IS NOT NULL;
