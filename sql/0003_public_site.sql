-- The public site (issue 6). Contact/feedback messages are stored before support is emailed,
-- so a mail outage loses nothing. Blog subscribers are double opt-in: a row starts 'pending'
-- holding only the SHA-256 of a single-use confirm token (never the token), and only the link
-- in the confirmation mail makes it 'confirmed'. Unsubscribe links are HMAC-signed ids, so
-- nothing about them is stored. Rows are kept after unsubscribing as the record of consent.
CREATE TABLE feedback_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  first_name text NOT NULL CHECK (length(first_name) BETWEEN 1 AND 100),
  last_name text NOT NULL CHECK (length(last_name) BETWEEN 1 AND 100),
  field text NOT NULL CHECK (length(field) BETWEEN 1 AND 100),
  contact_number text NOT NULL CHECK (contact_number ~ '^[6-9][0-9]{9}$'),
  email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  message text NOT NULL CHECK (length(message) BETWEEN 1 AND 5000),
  ip inet,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX feedback_messages_created_at ON feedback_messages (created_at DESC);

CREATE TABLE blog_subscribers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'confirmed', 'unsubscribed')),
  confirm_token_hash text UNIQUE CHECK (confirm_token_hash ~ '^[0-9a-f]{64}$'),
  confirm_token_expires_at timestamptz,
  -- The last mail sent because of the subscribe form: throttles re-sends to one address.
  last_mailed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  confirmed_at timestamptz,
  unsubscribed_at timestamptz,
  CHECK ((confirm_token_hash IS NULL) = (confirm_token_expires_at IS NULL))
);
