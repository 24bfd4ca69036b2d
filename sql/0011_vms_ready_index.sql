-- The landing page's time-to-desktop figure is the median of the most recent provisions
-- (core/db/provisionStats.ts); this index lets every landing view read the latest ones
-- without scanning every machine ever created.
CREATE INDEX vms_ready_recent ON vms (ready_at DESC) WHERE ready_at IS NOT NULL;
