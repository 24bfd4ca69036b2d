-- A tax invoice names the service's SAC code (Services Accounting Code). Recorded on each
-- invoice as issued (SAC_CODE, default 998315: IT infrastructure provisioning / hosting), so a
-- later change of configuration never rewrites an invoice already given. Invoices issued before
-- this migration stay without one: they were issued that way.
ALTER TABLE invoices ADD COLUMN sac_code text;
