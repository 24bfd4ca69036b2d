-- Sign-ins with the right password that stop at the second step, from addresses the owner has
-- not used, warn the owner: each challenge keeps the address it was started from, and the
-- owner's addresses are read from their sessions, so both are looked up by user.
CREATE INDEX two_factor_challenges_user_created ON two_factor_challenges (user_id, created_at);
CREATE INDEX sessions_user_ip ON sessions (user_id, ip);
