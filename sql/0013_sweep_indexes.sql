-- The sweeps run every minute over every customer and must find their few rows without reading
-- whole tables (tests/integration/sweep-plans.test.ts checks their plans over 100,000 rows).
-- plan-expiry: active plans by expiry (lapsed ones to expire, reminders, out-of-plan machines);
-- the older subscriptions_active_type index only orders by instance type.
CREATE INDEX subscriptions_active_expiry ON subscriptions (expires_at) WHERE status = 'active';
