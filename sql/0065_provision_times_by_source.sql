-- The wait after paying is estimated from the same recorded provisions as the landing page's
-- time-to-desktop figure, told apart by how the machine came (a warm-pool spare or a fresh
-- launch, which take minutes more). This index lets the estimate read each kind's latest
-- provisions without walking past the other kind's.
CREATE INDEX vms_ready_recent_by_source ON vms (source, ready_at DESC) WHERE ready_at IS NOT NULL;
