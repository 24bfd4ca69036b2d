-- The machine's clock (machine_clocks, 0082) is a part of the dashboard record too: its writes are
-- noted in dashboard_changes like those of every other table the record reads (0076, which runs
-- before 0082 in a fresh database, so cannot name it).
CREATE TRIGGER machine_clocks_dashboard_rows AFTER INSERT OR DELETE ON machine_clocks
  FOR EACH ROW EXECUTE FUNCTION dashboard_changed_by_vm();
CREATE TRIGGER machine_clocks_dashboard_update AFTER UPDATE ON machine_clocks
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION dashboard_changed_by_vm();
