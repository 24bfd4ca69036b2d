-- A refund of a plan reduces the value of a supply we invoiced: CGST Act s.34 has us issue a
-- credit note for it, with its own consecutive series per financial year (CGST Rules 53(1A)).
-- One per refund (refund_id UNIQUE), issued in the transaction that records PayU's SUCCESS, so a
-- retry finds it and a rollback gives its number back: no duplicates, no gaps. Like invoices,
-- a credit note is frozen when issued: parties, invoice reference and the tax split are copied.
CREATE TABLE credit_note_counters (
  financial_year text PRIMARY KEY CHECK (financial_year ~ '^[0-9]{4}-[0-9]{2}$'),
  last_sequence integer NOT NULL CHECK (last_sequence >= 0)
);

CREATE TABLE credit_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  credit_note_number text NOT NULL UNIQUE CHECK (length(credit_note_number) <= 16),
  financial_year text NOT NULL,
  sequence integer NOT NULL CHECK (sequence >= 1),
  refund_id uuid NOT NULL UNIQUE REFERENCES refunds (id),
  invoice_id uuid NOT NULL REFERENCES invoices (id),
  user_id uuid NOT NULL REFERENCES users (id),
  issued_at timestamptz NOT NULL DEFAULT now(),
  -- The corresponding tax invoice, as printed on it.
  invoice_number text NOT NULL,
  invoice_issued_at timestamptz NOT NULL,
  reason text NOT NULL,
  plan_name text NOT NULL,
  description text NOT NULL,
  total_paise integer NOT NULL CHECK (total_paise > 0),
  taxable_paise integer NOT NULL,
  cgst_paise integer NOT NULL,
  sgst_paise integer NOT NULL,
  igst_paise integer NOT NULL,
  gst_rate_percent numeric(5, 2) NOT NULL,
  supply text NOT NULL CHECK (supply IN ('intra-state', 'inter-state')),
  place_of_supply text NOT NULL,
  supplier_legal_name text NOT NULL,
  supplier_gstin text NOT NULL,
  supplier_address text NOT NULL,
  supplier_state text NOT NULL,
  sac_code text,
  customer_name text NOT NULL,
  customer_email text NOT NULL,
  customer_phone text,
  txnid text NOT NULL,
  UNIQUE (financial_year, sequence),
  CHECK (taxable_paise + cgst_paise + sgst_paise + igst_paise = total_paise)
);
CREATE INDEX credit_notes_user ON credit_notes (user_id, issued_at DESC);
CREATE INDEX credit_notes_invoice ON credit_notes (invoice_id);
