-- A device signed out by a password change is told why: the revocation records its reason,
-- and the next request from that device (the only one that still carries the cookie) answers it.
ALTER TABLE sessions ADD COLUMN revoked_reason text
  CHECK (revoked_reason IS NULL OR revoked_reason IN ('password-changed'));
