-- Rate-limit counters for rate-limiter-flexible's Postgres store. In the database (not process
-- memory) so limits hold across any number of web processes. Layout is the library's own.
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
