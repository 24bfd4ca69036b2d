-- The name follows the customer's PC. 0055 promised a label per machine, released with it and
-- never pointed anywhere again; but a renewal, a restore from the kept disk or a replacement
-- makes a new machine row, which then got a new name, and Moonlight, the Remote Desktop and DCV
-- files had to be set up again for the same PC (the restored disk even carries the same Sunshine
-- identity and pairings). Now a customer's new machine takes over that customer's previous name
-- once the machine holding it is gone (terminated, given up, or its name released): the row's
-- vm_id moves to the new machine and its record is pointed there (claimName in
-- core/domain/machineName.ts). While the old machine's termination lags, the name stays with it
-- and the new machine is shown with its address until the name passes: never two machines behind
-- one name. A label is still never given to a different customer: its user_id never changes, and
-- the trigger below refuses a row whose machine is another customer's.

COMMENT ON TABLE machine_names IS
  'A customer''s DNS names: a label belongs to one customer for good (user_id never changes) and is held by one of their machines at a time (vm_id), passing to their next machine once the holder is gone; released_at: its record is deleted and no machine holds it until their next one takes it over.';

-- The claim's question: the name the customer's latest other machine holds.
CREATE INDEX machine_names_user ON machine_names (user_id);

CREATE FUNCTION machine_names_one_customer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (NEW.label IS DISTINCT FROM OLD.label OR NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
    RAISE EXCEPTION 'machine name %: a label stays with its customer', OLD.label
      USING ERRCODE = 'check_violation';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM vms WHERE id = NEW.vm_id AND user_id = NEW.user_id) THEN
    RAISE EXCEPTION 'machine name %: machine % is not its customer''s', NEW.label, NEW.vm_id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER machine_names_one_customer BEFORE INSERT OR UPDATE OF label, user_id, vm_id ON machine_names
  FOR EACH ROW EXECUTE FUNCTION machine_names_one_customer();
