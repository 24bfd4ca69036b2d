-- payment-reconcile looks each minute for open refunds (requested, accepted) that nothing has
-- moved for hours (their job was lost). Only open refunds are in this index, oldest change
-- first, so that look reads the few rows it may act on, not every refund ever made.
CREATE INDEX refunds_open_by_update ON refunds (updated_at) WHERE status IN ('requested', 'accepted');
