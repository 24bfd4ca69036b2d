-- A machine's ending was mailed twice ("deleted … not renewed", once per snapshot taken) and
-- before EC2 had deleted anything. One row per machine whose ending was mailed: the mail and
-- this row are written in one transaction, and the primary key refuses a second ending mail
-- of any kind for the same machine. Endings mailed before this migration are carried over.

CREATE TABLE vm_endings (
  vm_id uuid PRIMARY KEY REFERENCES vms (id),
  kind text NOT NULL,
  notice_key text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO vm_endings (vm_id, kind, notice_key, at)
SELECT DISTINCT ON (vm_id) vm_id, kind, key, sent_at
FROM vm_notices
WHERE vm_id IS NOT NULL AND kind IN ('vm-terminated', 'disk-kept')
ORDER BY vm_id, sent_at;
