-- An emailed code belongs to the browser that asked for it: a code row records a hash of that
-- browser's requester cookie, and a new code replaces only that browser's earlier one. Someone
-- else asking for (or guessing at) codes for the same email can no longer kill the owner's.
ALTER TABLE one_time_codes ADD COLUMN requester_hash text;
CREATE INDEX one_time_codes_requester ON one_time_codes (email, purpose, requester_hash, created_at DESC)
  WHERE consumed_at IS NULL;
