-- The customer's machine and files survive. A renewal into another kind of plan keeps the same
-- instance: its type is changed while stopped and its disk grown, recorded here as the change
-- still to make (`resize_to_*`) and the type it came from (`resized_from_type`, to put back if
-- no machine of the new type is free). An expired machine's disk is kept as a snapshot for a
-- window (`keep_disk` on the terminating row, then a `vm_snapshots` row); a renewal inside it
-- launches the new machine from that snapshot (`restore_snapshot_id`).
ALTER TABLE vms
  ADD COLUMN resize_to_type text,
  ADD COLUMN resize_to_gb integer CHECK (resize_to_gb BETWEEN 30 AND 16384),
  ADD COLUMN resized_from_type text,
  ADD COLUMN keep_disk boolean NOT NULL DEFAULT false;

CREATE TABLE vm_snapshots (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  vm_id uuid NOT NULL REFERENCES vms (id),
  -- EC2's id, null from the moment we ask until EC2 has answered (found again by our tag).
  snapshot_id text UNIQUE,
  -- creating → completed → (restored | deleted); failed when EC2 reports an error.
  state text NOT NULL DEFAULT 'creating'
    CHECK (state IN ('creating', 'completed', 'restored', 'deleted', 'failed')),
  volume_gb integer NOT NULL,
  instance_type text NOT NULL,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  -- Deleted at this instant unless a renewal restores it first.
  keep_until timestamptz NOT NULL,
  restored_vm_id uuid REFERENCES vms (id),
  deleted_at timestamptz,
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- At most one snapshot in the making or kept per machine: a retried step finds the row.
CREATE UNIQUE INDEX vm_snapshots_one_live_per_vm ON vm_snapshots (vm_id)
  WHERE state IN ('creating', 'completed');
CREATE INDEX vm_snapshots_user ON vm_snapshots (user_id, created_at DESC);
-- The deletion sweep: kept snapshots by their end, and restored ones still to delete.
CREATE INDEX vm_snapshots_due ON vm_snapshots (keep_until) WHERE state IN ('completed', 'restored');

ALTER TABLE vms ADD COLUMN restore_snapshot_id uuid REFERENCES vm_snapshots (id);
