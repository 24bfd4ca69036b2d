import { sweepMachineHealth } from '../../core/commands/machineHealth.ts';
import type { WorkerDeps } from '../deps.ts';
import { sweepJob } from '../job.ts';

/**
 * `machine-health` (cron, every minute): silent machines and forged reports raised, recovered ones
 * resolved, old refusals deleted (core/commands/machineHealth.ts).
 */
export function machineHealth(deps: WorkerDeps) {
  return sweepJob('machine-health', () => sweepMachineHealth(deps));
}
