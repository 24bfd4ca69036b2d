-- Operator alerts must reach a person, not wait for someone to run `npm run alerts`: the
-- `alert-notify` sweep mails each new alert to OPS_EMAIL and posts it to ALERT_WEBHOOK_URL.
-- One notification per open alert (its dedupe key is kind + subject), then a reminder at most
-- every ALERT_RENOTIFY_MINUTES while it keeps happening, until someone acknowledges or resolves it.
ALTER TABLE operator_alerts
  ADD COLUMN notified_at timestamptz,
  ADD COLUMN notify_count integer NOT NULL DEFAULT 0,
  ADD COLUMN acknowledged_at timestamptz;

-- The sweep's candidates: open, unacknowledged alerts.
CREATE INDEX operator_alerts_to_notify ON operator_alerts (last_seen_at)
  WHERE resolved_at IS NULL AND acknowledged_at IS NULL;
