-- Plans that renew themselves: UPI AutoPay and card standing instructions (SI) through PayU.
-- A mandate is registered by a checkout posted with si=1; each renewal is one row here that
-- walks notice (pre_debit_SI) → debit (si_transaction) → renewed | failed. A renewal is keyed
-- on the subscription it renews, and every step is a conditional transition, so two sweeps at
-- once, a crash between charge and activation or a late callback charge and renew once. The
-- debits themselves are ordinary payment rows (their txnid, written before PayU is called, is
-- the idempotency key PayU refuses twice), settled by the same verification as checkouts.

CREATE TABLE autopay_mandates (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  -- The checkout (si=1) that registers the mandate; PayU's mihpayid of it is the authpayuid.
  registration_payment_id uuid NOT NULL UNIQUE REFERENCES payments (id),
  -- What every renewal buys, copied from the plan chosen at checkout.
  plan_id text NOT NULL,
  plan_name text NOT NULL,
  hours integer NOT NULL,
  storage_gb integer NOT NULL,
  instance_type text NOT NULL,
  amount_paise integer NOT NULL CHECK (amount_paise > 0),
  -- pending: checkout not paid yet; revoked: cancelled outside (UPI app, bank); failed: the
  -- registration gave no usable mandate.
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'active', 'paused', 'cancelled', 'revoked', 'failed')),
  method text CHECK (method IN ('upi', 'card')),
  authpayuid text,
  -- The si_details paymentEndDate sent at registration.
  end_date date NOT NULL,
  -- The plan whose end the next renewal follows.
  current_subscription_id uuid REFERENCES subscriptions (id),
  -- When the next debit is due, as the dashboard shows it (null when none is scheduled).
  next_debit_at timestamptz,
  -- A plain sentence for the customer when something went wrong (revoked outside, failed).
  problem text,
  paused_at timestamptz,
  cancelled_at timestamptz,
  -- Revoking at PayU: asked (cancel, replaced, account deleted) and PayU's acknowledgement.
  revoke_requested_at timestamptz,
  revoked_at timestamptz,
  revoke_answer jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- At most one mandate a customer can be debited through.
CREATE UNIQUE INDEX autopay_mandates_one_live ON autopay_mandates (user_id) WHERE status IN ('active', 'paused');
-- The dashboard's one statement reads the customer's latest mandate.
CREATE INDEX autopay_mandates_user ON autopay_mandates (user_id, created_at DESC);
-- The sweep's look for mandates whose next notice falls due.
CREATE INDEX autopay_mandates_due ON autopay_mandates (next_debit_at) WHERE status = 'active';
-- Revokes PayU has not acknowledged yet.
CREATE INDEX autopay_mandates_revoke_open ON autopay_mandates (revoke_requested_at)
  WHERE revoke_requested_at IS NOT NULL AND revoked_at IS NULL;

CREATE TABLE autopay_renewals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  mandate_id uuid NOT NULL REFERENCES autopay_mandates (id),
  user_id uuid NOT NULL REFERENCES users (id),
  -- The period's identity: one renewal per subscription renewed, whoever starts it.
  renews_subscription_id uuid NOT NULL UNIQUE REFERENCES subscriptions (id),
  -- The renewal's India date (YYYY-MM-DD), for people and PayU's request ids.
  period_key text NOT NULL CHECK (period_key ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  -- When the renewed plan ends, and when the debit is due (told to the customer and PayU).
  renewal_at timestamptz NOT NULL,
  debit_at timestamptz NOT NULL,
  amount_paise integer NOT NULL CHECK (amount_paise > 0),
  state text NOT NULL
    CHECK (state IN ('noticing', 'noticed', 'debiting', 'retrying', 'renewed', 'failed', 'skipped',
                     'cancelled', 'superseded', 'manual')),
  -- pre_debit_SI: our request id (PayU's idempotency for the notice) and PayU's answer.
  request_id text NOT NULL UNIQUE,
  notice_sent_at timestamptz,
  notice_attempts integer NOT NULL DEFAULT 0,
  notice_answer jsonb,
  -- A sweep holds a renewal while it talks to PayU about it; a crashed one's lease runs out.
  lease_until timestamptz,
  -- The pending subscription the debit buys, made with the first attempt.
  subscription_id uuid REFERENCES subscriptions (id),
  -- The current attempt's payment (its txnid is the idempotency key of that debit).
  payment_id uuid REFERENCES payments (id),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  debit_answer jsonb,
  debit_answered_at timestamptz,
  failure_reason text,
  problem text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX autopay_renewals_open ON autopay_renewals (updated_at)
  WHERE state IN ('noticing', 'noticed', 'debiting', 'retrying');
CREATE INDEX autopay_renewals_mandate ON autopay_renewals (mandate_id, created_at DESC);

-- The mandate's latest renewal: the dashboard's one statement joins it by key (no sort per poll).
ALTER TABLE autopay_mandates ADD COLUMN latest_renewal_id uuid REFERENCES autopay_renewals (id);

-- Pending subscriptions that renew another one (an AutoPay debit's, or a "Pay now" checkout's):
-- activating one continues the renewed plan's period on the same machine.
CREATE TABLE subscription_renewals (
  subscription_id uuid PRIMARY KEY REFERENCES subscriptions (id),
  renews_subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  renewal_id uuid NOT NULL REFERENCES autopay_renewals (id)
);

-- The payments that are standing-instruction debits: verified with verify_si_payment.
CREATE TABLE autopay_debits (
  payment_id uuid PRIMARY KEY REFERENCES payments (id),
  renewal_id uuid NOT NULL REFERENCES autopay_renewals (id),
  attempt integer NOT NULL CHECK (attempt >= 1),
  UNIQUE (renewal_id, attempt)
);
