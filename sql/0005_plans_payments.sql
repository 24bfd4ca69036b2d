-- Plans, PayU payments, GST invoices and refunds (issue 4). A plan bought is a subscription:
-- recorded as pending when chosen, activated only when PayU itself says the payment
-- succeeded (never the browser). Everything PayU sends is keyed on our txnid, so replays and
-- a webhook racing the browser return activate once. Invoice numbers are sequential and
-- gapless per Indian financial year: a counter row taken in the activating transaction.
-- Money is integer paise throughout.

CREATE TABLE subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  -- The catalogue plan whose machine it runs on (core/domain/plans.ts PLAN_IDS); for a trial
  -- the plan the trial is of.
  plan_id text NOT NULL CHECK (plan_id IN ('legend', 'pro-legend', 'ultra-legend', 'editor-low', 'editor-high')),
  -- As the product shows it (spec §3 selectedPlan): "LEGEND", "PRO LEGEND", or "Trial".
  plan_name text NOT NULL CHECK (length(plan_name) BETWEEN 1 AND 40),
  is_trial boolean NOT NULL DEFAULT false,
  hours integer NOT NULL CHECK (hours IN (1, 30, 45, 65, 90)),
  storage_gb integer NOT NULL CHECK (storage_gb > 0),
  instance_type text NOT NULL,
  -- From the catalogue when chosen; what the payment charges.
  price_paise integer NOT NULL CHECK (price_paise > 0),
  status text NOT NULL DEFAULT 'pending_payment'
    CHECK (status IN ('pending_payment', 'active', 'expired', 'cancelled')),
  -- The phone a trial was taken with: one trial per phone number as well as per user.
  trial_phone text,
  purchased_at timestamptz,
  expires_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (is_trial = (hours = 1)),
  CHECK (status = 'pending_payment' OR status = 'cancelled' OR (purchased_at IS NOT NULL AND expires_at IS NOT NULL))
);
-- At most one active plan per user (ARCHITECTURE "State").
CREATE UNIQUE INDEX subscriptions_one_active ON subscriptions (user_id) WHERE status = 'active';
-- At most one trial that was ever paid for, per user and per phone number.
CREATE UNIQUE INDEX subscriptions_one_trial_per_user ON subscriptions (user_id)
  WHERE is_trial AND purchased_at IS NOT NULL;
CREATE UNIQUE INDEX subscriptions_one_trial_per_phone ON subscriptions (trial_phone)
  WHERE is_trial AND purchased_at IS NOT NULL;
CREATE INDEX subscriptions_user ON subscriptions (user_id, created_at DESC);
-- Capacity: machines in use per instance type.
CREATE INDEX subscriptions_active_type ON subscriptions (instance_type) WHERE status = 'active';

-- One attempt to pay for a subscription through PayU's hosted checkout. A new attempt is a new
-- row with a fresh txnid (PayU never accepts a txnid twice).
CREATE TABLE payments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  txnid text NOT NULL UNIQUE CHECK (txnid ~ '^[A-Za-z0-9_-]{1,25}$'),
  user_id uuid NOT NULL REFERENCES users (id),
  subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  amount_paise integer NOT NULL CHECK (amount_paise > 0),
  -- Exactly the strings posted to PayU and hashed.
  amount text NOT NULL,
  productinfo text NOT NULL,
  status text NOT NULL DEFAULT 'initiated' CHECK (status IN ('initiated', 'success', 'failure')),
  mihpayid text,
  -- PayU's verify_payment answer that decided the status, for the record.
  verify_answer jsonb,
  verified_at timestamptz,
  -- Callbacks seen (browser return, webhook, SPA): counts and the last, for support.
  callback_count integer NOT NULL DEFAULT 0,
  last_callback_at timestamptz,
  last_callback_status text,
  -- Paid but not activated (e.g. a second payment while a plan was already active): the
  -- operator refunds it. Null when nothing is wrong.
  problem text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_subscription ON payments (subscription_id);
CREATE INDEX payments_user ON payments (user_id, created_at DESC);

-- The last invoice number used in each financial year. Taking the next one locks the row until
-- the activating transaction commits; a rollback gives the number back, so there are no gaps.
CREATE TABLE invoice_counters (
  financial_year text PRIMARY KEY CHECK (financial_year ~ '^[0-9]{4}-[0-9]{2}$'),
  last_sequence integer NOT NULL CHECK (last_sequence >= 0)
);

-- A GST tax invoice, one per successful payment, frozen when issued: supplier and customer
-- details and the tax split are copied, not joined, so later edits never change an invoice.
CREATE TABLE invoices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  invoice_number text NOT NULL UNIQUE,
  financial_year text NOT NULL,
  sequence integer NOT NULL CHECK (sequence >= 1),
  payment_id uuid NOT NULL UNIQUE REFERENCES payments (id),
  subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  user_id uuid NOT NULL REFERENCES users (id),
  issued_at timestamptz NOT NULL DEFAULT now(),
  plan_name text NOT NULL,
  description text NOT NULL,
  hours integer NOT NULL,
  storage_gb integer NOT NULL,
  purchased_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  total_paise integer NOT NULL CHECK (total_paise >= 0),
  taxable_paise integer NOT NULL,
  cgst_paise integer NOT NULL,
  sgst_paise integer NOT NULL,
  igst_paise integer NOT NULL,
  gst_rate_percent numeric(5, 2) NOT NULL,
  supply text NOT NULL CHECK (supply IN ('intra-state', 'inter-state')),
  place_of_supply text NOT NULL,
  supplier_legal_name text NOT NULL,
  supplier_gstin text NOT NULL,
  supplier_address text NOT NULL,
  supplier_state text NOT NULL,
  customer_name text NOT NULL,
  customer_email text NOT NULL,
  customer_phone text,
  txnid text NOT NULL,
  UNIQUE (financial_year, sequence),
  CHECK (taxable_paise + cgst_paise + sgst_paise + igst_paise = total_paise)
);
CREATE INDEX invoices_user ON invoices (user_id, issued_at DESC);

-- Refunds through PayU's cancel_refund_transaction. The row (and its token) is written before
-- PayU is called: a retry after a crash reuses the token, which PayU refuses to apply twice.
CREATE TABLE refunds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  payment_id uuid NOT NULL REFERENCES payments (id),
  token text NOT NULL UNIQUE CHECK (token ~ '^[A-Za-z0-9_-]{1,23}$'),
  amount_paise integer NOT NULL CHECK (amount_paise > 0),
  status text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'accepted', 'failed')),
  -- The policy's quote when it was requested (day of plan, percent, charge), for the record.
  quote jsonb,
  payu_request_id text,
  error_code integer,
  message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One refund per payment in flight or done; a failed one may be tried again with a new token.
CREATE UNIQUE INDEX refunds_one_per_payment ON refunds (payment_id) WHERE status IN ('requested', 'accepted');
