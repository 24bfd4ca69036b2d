-- vm-sync walks every machine that may hold an instance, a page at a time in id order (keyset
-- paging). This partial index holds only those machines, so a page is read in id order without
-- touching the terminated history that makes up most of the table.
CREATE INDEX vms_sweep ON vms (id) WHERE state NOT IN ('terminated', 'error', 'requested');
