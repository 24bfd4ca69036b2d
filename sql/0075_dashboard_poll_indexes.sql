-- The dashboard poll's one statement (core/db/dashboard.ts) runs for every signed-in browser every
-- few seconds. Each of its parts picks one row in an order ("the latest plan bought", "the live
-- machine, else the newest"): these indexes hold the rows in that order, so a poll reads the first
-- entry instead of sorting the customer's rows. And its AutoPay part is read only for customers who
-- ever had a mandate (most never do): `users.autopay_since` says so, kept in step by a trigger, so
-- no code path that writes a mandate can forget it.

-- The subscription the dashboard shows: currentSubscriptionOf in core/db/subscriptions.ts.
CREATE INDEX subscriptions_current ON subscriptions (user_id, purchased_at DESC, id DESC)
  WHERE purchased_at IS NOT NULL AND status IN ('active', 'expired');

-- The machine the dashboard shows: dashboardVmOf in core/db/vms.ts (live first, then the newest).
-- The expression is that ORDER BY's, LIVE_STATES of core/domain/lifecycle.ts spelled out; a test
-- (tests/integration/dashboard-poll-fast.test.ts) fails if the statement sorts again.
CREATE INDEX vms_dashboard ON vms (
  user_id,
  (state IN ('requested', 'provisioning', 'starting', 'running', 'stopping', 'stopped')) DESC,
  created_at DESC
);

-- The customer's latest kept disk (a copy in the making or kept).
CREATE INDEX vm_snapshots_kept ON vm_snapshots (user_id, created_at DESC) WHERE state IN ('creating', 'completed');

-- When the customer's first mandate left 'pending' (registered, or failed to): from then on the
-- dashboard has an AutoPay line to show. Null for everyone who never set AutoPay up.
ALTER TABLE users ADD COLUMN autopay_since timestamptz;

UPDATE users u SET autopay_since = m.first
FROM (SELECT user_id, min(created_at) AS first FROM autopay_mandates WHERE status <> 'pending' GROUP BY user_id) m
WHERE u.id = m.user_id;

CREATE FUNCTION users_autopay_since() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users SET autopay_since = now() WHERE id = NEW.user_id AND autopay_since IS NULL;
  RETURN NULL;
END
$$;

CREATE TRIGGER autopay_mandates_mark_user
  AFTER INSERT OR UPDATE OF status ON autopay_mandates
  FOR EACH ROW WHEN (NEW.status <> 'pending')
  EXECUTE FUNCTION users_autopay_since();
