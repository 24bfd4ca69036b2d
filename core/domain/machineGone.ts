import type { MachineState } from './lifecycle.ts';

/**
 * The customer's machine is gone, or going: deleted, being deleted, or given up (`error`, where an
 * operator decides what follows). Nothing is shown, downloaded or played on such a machine.
 */
export const GONE_STATES = ['terminating', 'terminated', 'error'] as const satisfies readonly MachineState[];

export function isGone(state: string): boolean {
  return (GONE_STATES as readonly string[]).includes(state);
}
