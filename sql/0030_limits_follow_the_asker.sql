-- Limits follow the asker, never the target alone: what strangers do to an email address must
-- not refuse its owner a code or a second factor.
--
-- Browsers that signed in to an account: a hash of the browser's device cookie (random, set at
-- sign-in), per user. Such a browser always gets its code; nobody else can claim to be one.
CREATE TABLE known_devices (
  user_id uuid NOT NULL REFERENCES users (id),
  device_hash text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, device_hash)
);

-- One inbox's code mails (sign-up, login code, reset link) paced by a generic cell rate: each
-- mail moves `tat` (the theoretical arrival time) on by the interval; a mail is allowed while
-- tat stays within the burst. Checked and spent in one statement. `attacked_until`: strangers
-- were refused recently, so new browsers meet the proof-of-work gate.
CREATE TABLE code_mail_budgets (
  email text PRIMARY KEY CHECK (email = lower(btrim(email))),
  tat timestamptz NOT NULL,
  attacked_until timestamptz
);

-- A repeated request re-sends the live code or link instead of minting another: the code (or
-- link) is kept encrypted beside its hash while it is live.
ALTER TABLE one_time_codes ADD COLUMN code_sealed text;
ALTER TABLE password_reset_tokens ADD COLUMN url_sealed text;

-- Second steps that failed after the right password, so the owner is told someone has it.
ALTER TABLE two_factor_challenges ADD COLUMN failed_at timestamptz, ADD COLUMN ip inet;
CREATE INDEX two_factor_challenges_failed ON two_factor_challenges (user_id, failed_at)
  WHERE failed_at IS NOT NULL;
-- When the owner was last warned (at most one warning an hour).
CREATE TABLE password_leak_warnings (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  warned_at timestamptz NOT NULL
);

-- Proof-of-work solutions already used (an ALTCHA challenge counts once), until they expire.
CREATE TABLE used_proofs (
  signature text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
