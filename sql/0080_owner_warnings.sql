-- Mails that warn an account's owner about what someone else did with it ("someone has your
-- password", "someone tried to change your password") each go at most once an hour: one table
-- for every kind, in place of the one that held the first kind only.
CREATE TABLE owner_warnings (
  user_id uuid NOT NULL REFERENCES users (id),
  kind text NOT NULL CHECK (kind IN ('password-known', 'password-guessed')),
  warned_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, kind)
);
INSERT INTO owner_warnings (user_id, kind, warned_at)
  SELECT user_id, 'password-known', warned_at FROM password_leak_warnings;
DROP TABLE password_leak_warnings;
