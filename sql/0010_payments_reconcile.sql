-- Money reconciles itself. The browser return and the webhook are hints that can be lost; a
-- worker sweep asks PayU about every payment not yet final, on a backoff schedule, and gives
-- up (abandoned) after 72 hours. A payment PayU took that activated nothing is told to the
-- customer and the operator and refunded in full after a delay unless an operator resolved it.
-- Refunds become jobs that follow PayU's own status of the refund to the end.

ALTER TABLE payments DROP CONSTRAINT payments_status_check;
ALTER TABLE payments ADD CONSTRAINT payments_status_check
  CHECK (status IN ('initiated', 'pending', 'success', 'failure', 'abandoned'));
ALTER TABLE payments
  -- When the reconciliation sweep asks PayU next; null once the payment is final.
  ADD COLUMN next_check_at timestamptz,
  -- How many times the sweep has asked PayU (the backoff step).
  ADD COLUMN check_count integer NOT NULL DEFAULT 0,
  ADD COLUMN last_checked_at timestamptz,
  -- PayU's reason for a failure (error_Message / field9), shown to the customer in plain words.
  ADD COLUMN failure_reason text,
  -- Paid but not activated: when it was found, and when the worker refunds it in full unless an
  -- operator resolved it (the alert) first.
  ADD COLUMN problem_at timestamptz,
  ADD COLUMN auto_refund_at timestamptz;
UPDATE payments SET next_check_at = created_at + interval '2 minutes' WHERE status = 'initiated';
CREATE INDEX payments_open_due ON payments (next_check_at) WHERE status IN ('initiated', 'pending');
CREATE INDEX payments_auto_refund_due ON payments (auto_refund_at) WHERE auto_refund_at IS NOT NULL;
-- The per-user cap on open checkouts counts recent attempts.
CREATE INDEX payments_user_open ON payments (user_id, created_at) WHERE status IN ('initiated', 'pending');

ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
-- requested: row and token written, PayU not yet answered; accepted: PayU queued it (request_id);
-- refunded: check_action_status says SUCCESS; failed: refused or FAILURE.
ALTER TABLE refunds ADD CONSTRAINT refunds_status_check
  CHECK (status IN ('requested', 'accepted', 'refunded', 'failed'));
ALTER TABLE refunds
  ADD COLUMN source text NOT NULL DEFAULT 'operator' CHECK (source IN ('auto', 'customer', 'operator')),
  -- PayU's last word from check_action_status (QUEUED, IN PROGRESS, SUCCESS, FAILURE, REQUESTED…).
  ADD COLUMN payu_status text,
  ADD COLUMN status_checks integer NOT NULL DEFAULT 0,
  ADD COLUMN completed_at timestamptz;
DROP INDEX refunds_one_per_payment;
CREATE UNIQUE INDEX refunds_one_per_payment ON refunds (payment_id)
  WHERE status IN ('requested', 'accepted', 'refunded');
