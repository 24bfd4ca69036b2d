-- Accounts and sessions (issue 3): users who sign up with an emailed code or Google, log in by
-- password, code or Google, recover by link or code, and may add a TOTP second factor.
-- Identity lives on the server: sessions are rows whose token only the browser's cookie holds
-- (the table keeps its SHA-256). Every code, token and recovery code is stored hashed; the TOTP
-- secret is stored encrypted (AES-256-GCM under a key from APP_SECRET). A deleted user's row is
-- anonymised, not removed, so invoices and payments that reference it stay intact.

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Always stored lower-cased and trimmed, so the unique index is case-insensitive.
  email text NOT NULL UNIQUE CHECK (email = lower(btrim(email)) AND length(email) BETWEEN 3 AND 254),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  phone text CHECK (phone ~ '^[6-9][0-9]{9}$'),
  -- argon2id; null for an account that has only ever signed in with Google.
  password_hash text,
  google_sub text UNIQUE,
  email_verified_at timestamptz,
  -- base64url(iv | tag | ciphertext) of the base32 secret; pending until confirmed with a code.
  totp_secret_encrypted text,
  totp_pending_secret_encrypted text,
  totp_enabled_at timestamptz,
  -- The last accepted TOTP time step: a code is good once (replay protection).
  totp_last_step bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CHECK (totp_enabled_at IS NULL OR totp_secret_encrypted IS NOT NULL)
);

-- A sign-up between the form and the emailed code (ARCHITECTURE deviation 3): the password is
-- already hashed, so it never travels again. One per email; a new sign-up replaces it.
CREATE TABLE pending_registrations (
  email text PRIMARY KEY CHECK (email = lower(btrim(email))),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  phone text NOT NULL CHECK (phone ~ '^[6-9][0-9]{9}$'),
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Six-digit codes mailed for sign-up ('register') and code login ('login'). Stored as an HMAC
-- under a server-side key (a 6-digit space is too small for a plain hash). Dead when consumed,
-- expired (10 minutes) or after 5 wrong tries.
CREATE TABLE one_time_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL CHECK (email = lower(btrim(email))),
  purpose text NOT NULL CHECK (purpose IN ('register', 'login')),
  code_hash text NOT NULL,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX one_time_codes_live ON one_time_codes (email, purpose, created_at DESC) WHERE consumed_at IS NULL;

-- Single-use password reset links, valid 30 minutes.
CREATE TABLE password_reset_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_reset_tokens_user ON password_reset_tokens (user_id) WHERE consumed_at IS NULL;

-- Server-side sessions. Valid while not revoked, before expires_at (absolute lifetime) and
-- while last_seen_at is recent enough (idle timeout, enforced by the code). User agent and
-- address are kept for the record (which devices are signed in), never used to decide.
CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  user_agent text CHECK (length(user_agent) <= 400),
  ip inet
);
CREATE INDEX sessions_user_live ON sessions (user_id) WHERE revoked_at IS NULL;

-- The half-finished login of a user with two-factor on: the first factor passed, the second is
-- due within minutes. The browser holds the token in a short-lived cookie.
CREATE TABLE two_factor_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  token_hash text NOT NULL UNIQUE,
  method text NOT NULL CHECK (method IN ('password', 'code', 'google')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Ten single-use codes shown once when two-factor is turned on, for a lost phone.
CREATE TABLE recovery_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  code_hash text NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, code_hash)
);

-- Problem reports sent while logged in now name their reporter.
ALTER TABLE problem_reports
  ADD CONSTRAINT problem_reports_user_fk FOREIGN KEY (user_id) REFERENCES users (id);
