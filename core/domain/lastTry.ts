/**
 * What the previous step of this run came to, when the next decision depends on it (a step
 * reports it; it never chooses what follows).
 * - no-spare: no warm-pool spare fits (the claim); nothing-adopted: nothing was launched under
 *   the machine's ClientToken; launch-failed: RunInstances failed (recorded on the row).
 * - start-failed: StartInstances failed and an attempt was counted; not-startable-yet: the
 *   instance is still stopping (not a failed attempt).
 * - stop-refused: the instance cannot be stopped yet (still pending).
 * - password-not-ready / password-undecryptable: what the Windows password capture found.
 * - name-failed: the machine's name was not pointed this time: Route 53 failed, or the name is
 *   still the customer's previous machine's (it passes on once that one is gone).
 * - instance-not-found: a call on the instance (start, stop) was answered "no such instance"
 *   (the step reports `cloud: null` with it).
 */
export type LastTry =
  | 'no-spare'
  | 'nothing-adopted'
  | 'launch-failed'
  | 'start-failed'
  | 'not-startable-yet'
  | 'stop-refused'
  | 'password-not-ready'
  | 'password-undecryptable'
  | 'name-failed'
  | 'instance-not-found';
