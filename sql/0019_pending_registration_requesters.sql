-- A pending sign-up belongs to the browser that started it, as its codes already do (0009).
-- Keyed by email alone, a second sign-up for the same address replaced the first one's name,
-- phone and password: someone who knew a person was signing up could register their email
-- with a password of their own, and the person's own code then created the account with the
-- stranger's password. Now each browser's sign-up is its own row, and verify-otp reads only
-- the row of the browser whose code it checked.
ALTER TABLE pending_registrations ADD COLUMN requester_hash text;
-- Sign-ups in flight keep going: their browser is the one their latest code was sent to.
UPDATE pending_registrations p SET requester_hash = (
  SELECT c.requester_hash FROM one_time_codes c
  WHERE c.email = p.email AND c.purpose = 'register' AND c.requester_hash IS NOT NULL
  ORDER BY c.created_at DESC LIMIT 1);
DELETE FROM pending_registrations WHERE requester_hash IS NULL;
ALTER TABLE pending_registrations ALTER COLUMN requester_hash SET NOT NULL;
ALTER TABLE pending_registrations DROP CONSTRAINT pending_registrations_pkey;
ALTER TABLE pending_registrations ADD PRIMARY KEY (email, requester_hash);
