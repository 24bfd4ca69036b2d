/**
 * A customer's machine: its states, and what each state allows (listed, shown, downloaded). The
 * row's state is what we want; what EC2 says is what is; the decisions (lifecycle.ts) close the gap.
 */

export const MACHINE_STATES = [
  'requested',
  'provisioning',
  'starting',
  'running',
  'stopping',
  'stopped',
  'terminating',
  'terminated',
  'error',
] as const;

export type MachineState = (typeof MACHINE_STATES)[number];

/** States in which a machine still is (or is becoming) the customer's: at most one per customer. */
export const LIVE_STATES = [
  'requested',
  'provisioning',
  'starting',
  'running',
  'stopping',
  'stopped',
] as const satisfies readonly MachineState[];

/** States that settle by themselves: something is under way and worth checking again soon. */
const TRANSITIONAL_STATES = [
  'requested',
  'provisioning',
  'starting',
  'stopping',
  'terminating',
] as const satisfies readonly MachineState[];

/**
 * The customer's machine is gone, or going: deleted, being deleted, or given up (`error`, where an
 * operator decides what follows). Nothing is shown, downloaded or played on such a machine.
 */
export const GONE_STATES = ['terminating', 'terminated', 'error'] as const satisfies readonly MachineState[];

export function isGone(state: string): boolean {
  return (GONE_STATES as readonly string[]).includes(state);
}

export function isLive(state: string): boolean {
  return (LIVE_STATES as readonly string[]).includes(state);
}

export function isTransitional(state: string): boolean {
  return (TRANSITIONAL_STATES as readonly string[]).includes(state);
}

/**
 * A desktop can be opened on the machine now (the Remote Desktop file, the browser desktop):
 * it runs and has a public address. `core/db/desktopTokens.ts` repeats it in SQL; the desktop
 * tokens' integration test proves both agree.
 */
export function desktopReachable(machine: { state: string; publicIp: string | null }): boolean {
  return machine.state === 'running' && machine.publicIp !== null;
}

/** What the downloads need: the password file once a password is stored, the RDP file while running with an address. */
export function downloadsReady(machine: {
  state: string;
  publicIp: string | null;
  passwordStored: boolean;
}): {
  rdp: boolean;
  password: boolean;
} {
  const kept = !isGone(machine.state);
  return {
    rdp: desktopReachable(machine),
    password: kept && machine.passwordStored,
  };
}
