-- The dashboard poll (core/db/dashboard.ts) reads one statement of a dozen parts, and most polls
-- find nothing changed since the last one. Every write to a row the record is made from now also
-- notes the customer it concerns here, with the writing transaction's id, so the web process can
-- keep the record it read with the snapshot it read it at and ask one index probe per poll:
-- "has a transaction that this snapshot did not see written anything of this customer's?".
-- Only when the answer is yes (or the kept record is old) does it read the whole record again.
--
-- Insert-only, with no unique key: a writer never waits here and never takes a lock another
-- writer could wait for, so no transaction can deadlock on it. Written by triggers, so no code
-- path that writes a row of the record can forget it; the property test
-- (tests/integration/dashboard-poll-fast.test.ts) writes every table of the record after a
-- first read and fails if a poll then answers the old record.
CREATE TABLE dashboard_changes (
  user_id uuid NOT NULL,
  -- The writing transaction (top level): whether a snapshot saw it is pg_visible_in_snapshot's.
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_changes_user ON dashboard_changes (user_id, xid);

-- Notes a change of `uid`'s record, and forgets those of its four oldest notes that are an hour
-- old and whose transactions have ended: a kept record is read again after at most 30 s
-- (core/db/dashboard.ts), so no snapshot still in use can need them. SKIP LOCKED: a note another
-- writer is forgetting is left to it, never waited for.
CREATE FUNCTION dashboard_changed(uid uuid) RETURNS void LANGUAGE sql AS $$
  INSERT INTO dashboard_changes (user_id) SELECT uid WHERE uid IS NOT NULL;
  DELETE FROM dashboard_changes
  WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM dashboard_changes
    WHERE ctid = ANY (ARRAY(SELECT ctid FROM dashboard_changes WHERE user_id = uid ORDER BY xid LIMIT 4))
      AND at < now() - interval '1 hour'
      AND xid < pg_snapshot_xmin(pg_current_snapshot())
    FOR UPDATE SKIP LOCKED));
$$;

-- Rows that name their customer.
CREATE FUNCTION dashboard_changed_by_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM dashboard_changed(OLD.user_id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
    PERFORM dashboard_changed(NEW.user_id);
  END IF;
  RETURN NULL;
END
$$;

-- The user row itself (name, email, deletion, AutoPay's gate).
CREATE FUNCTION dashboard_changed_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dashboard_changed(CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
  RETURN NULL;
END
$$;

-- Rows of a machine (health, clock, pairings, DNS name): the machine's customer.
CREATE FUNCTION dashboard_changed_by_vm() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM dashboard_changed(user_id) FROM vms WHERE id = OLD.vm_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.vm_id IS DISTINCT FROM OLD.vm_id) THEN
    PERFORM dashboard_changed(user_id) FROM vms WHERE id = NEW.vm_id;
  END IF;
  RETURN NULL;
END
$$;

-- A launch's secrets (SECRETS_OF_VM in core/db/machineSecrets.ts): the machine launched with
-- that token, or the one running the spare instance launched with it.
CREATE FUNCTION dashboard_changed_by_launch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  token uuid;
BEGIN
  FOREACH token IN ARRAY ARRAY[
    CASE WHEN TG_OP <> 'INSERT' THEN OLD.launch_token END,
    CASE WHEN TG_OP <> 'DELETE' THEN NEW.launch_token END]
  LOOP
    CONTINUE WHEN token IS NULL;
    PERFORM dashboard_changed(user_id) FROM vms WHERE id = token;
    PERFORM dashboard_changed(v.user_id)
    FROM pool_instances p JOIN vms v ON v.instance_id = p.instance_id WHERE p.id = token;
  END LOOP;
  RETURN NULL;
END
$$;

-- A spare's row decides which secrets a machine on its instance has (launchTokenOf).
CREATE FUNCTION dashboard_changed_by_instance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.instance_id IS NOT NULL THEN
    PERFORM dashboard_changed(user_id) FROM vms WHERE instance_id = OLD.instance_id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.instance_id IS NOT NULL THEN
    PERFORM dashboard_changed(user_id) FROM vms WHERE instance_id = NEW.instance_id;
  END IF;
  RETURN NULL;
END
$$;

-- For the two lookups above (machines by instance): spares' rows and secrets change rarely.
CREATE INDEX vms_instance ON vms (instance_id) WHERE instance_id IS NOT NULL;

-- Every table the record reads (but machine_clocks, made by 0082, which a fresh database has
-- not yet: 0085 gives it the same triggers). An update that changes nothing notes nothing. Two hot writers
-- are narrowed further: the minute sweep stamps `vms.synced_at` on every machine, and
-- `updated_at` moves with every other change; every other column, including any added later,
-- counts (the safe way round: a new column the record shows is never missed).
CREATE TRIGGER users_dashboard_delete AFTER DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION dashboard_changed_user();
CREATE TRIGGER users_dashboard_update AFTER UPDATE ON users
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'updated_at'))
  EXECUTE FUNCTION dashboard_changed_user();

CREATE TRIGGER vms_dashboard_rows AFTER INSERT OR DELETE ON vms
  FOR EACH ROW EXECUTE FUNCTION dashboard_changed_by_user();

-- The minute sweep counts every running machine's hours in a few statements of hundreds of rows
-- each: once per statement, set by set (a trigger per row cost the sweep about half again).
CREATE FUNCTION dashboard_changed_vms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changed AS (
    SELECT DISTINCT u.user_id
    FROM old_vms o JOIN new_vms n ON n.id = o.id
      CROSS JOIN LATERAL (VALUES (o.user_id), (n.user_id)) AS u (user_id)
    WHERE (to_jsonb(o) - '{synced_at,updated_at}'::text[])
          IS DISTINCT FROM (to_jsonb(n) - '{synced_at,updated_at}'::text[])
  ), noted AS (
    INSERT INTO dashboard_changes (user_id) SELECT user_id FROM changed
  )
  DELETE FROM dashboard_changes
  WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM dashboard_changes
    WHERE ctid = ANY (ARRAY(
        SELECT x.ctid FROM changed c
        CROSS JOIN LATERAL (
          SELECT ctid FROM dashboard_changes WHERE user_id = c.user_id ORDER BY xid LIMIT 4) x))
      AND at < now() - interval '1 hour'
      AND xid < pg_snapshot_xmin(pg_current_snapshot())
    FOR UPDATE SKIP LOCKED));
  RETURN NULL;
END
$$;
CREATE TRIGGER vms_dashboard_update AFTER UPDATE ON vms
  REFERENCING OLD TABLE AS old_vms NEW TABLE AS new_vms
  FOR EACH STATEMENT EXECUTE FUNCTION dashboard_changed_vms();

CREATE TRIGGER pool_instances_dashboard_rows AFTER INSERT OR DELETE ON pool_instances
  FOR EACH ROW EXECUTE FUNCTION dashboard_changed_by_instance();
CREATE TRIGGER pool_instances_dashboard_update AFTER UPDATE ON pool_instances
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.instance_id IS DISTINCT FROM NEW.instance_id)
  EXECUTE FUNCTION dashboard_changed_by_instance();

DO $$
DECLARE
  target record;
BEGIN
  FOR target IN
    SELECT * FROM (VALUES
      ('subscriptions', 'dashboard_changed_by_user'),
      ('vm_snapshots', 'dashboard_changed_by_user'),
      ('autopay_mandates', 'dashboard_changed_by_user'),
      ('autopay_renewals', 'dashboard_changed_by_user'),
      ('machine_health', 'dashboard_changed_by_vm'),
      ('stream_pairings', 'dashboard_changed_by_vm'),
      ('machine_names', 'dashboard_changed_by_vm'),
      ('machine_secrets', 'dashboard_changed_by_launch')
    ) AS t (name, fn)
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION %I()',
      target.name || '_dashboard_rows', target.name, target.fn);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) '
      'EXECUTE FUNCTION %I()', target.name || '_dashboard_update', target.name, target.fn);
  END LOOP;
END
$$;
