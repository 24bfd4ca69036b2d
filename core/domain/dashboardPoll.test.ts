import { describe, expect, it } from 'vitest';
import { DASHBOARD_POLL_MS, dashboardPollMs } from './dashboardPoll.ts';
import { VM_DISPLAY_STATES, type VmDisplayState } from './vm.ts';

describe('dashboardPollMs', () => {
  const expected: Record<VmDisplayState, number> = {
    provisioning: DASHBOARD_POLL_MS.transition,
    starting: DASHBOARD_POLL_MS.transition,
    stopping: DASHBOARD_POLL_MS.transition,
    running: DASHBOARD_POLL_MS.running,
    stopped: 0,
    none: 0,
    error: 0,
    terminated: 0,
  };

  it.each(VM_DISPLAY_STATES.map((state) => [state, expected[state]] as const))(
    'polls a %s machine every %i ms (0: never)',
    (state, ms) => {
      expect(dashboardPollMs({ vmLastState: state, waitingForDiskCopy: false })).toBe(ms);
    },
  );

  it('polls fast in transitions, rarely while running, and not before the first answer', () => {
    expect(DASHBOARD_POLL_MS.transition).toBe(2_000);
    expect(DASHBOARD_POLL_MS.running).toBeGreaterThanOrEqual(30_000);
    expect(dashboardPollMs(undefined)).toBe(0);
  });

  it("asks once a minute in a plan's last days even at rest, so a renewal or refund that moves the end shows", () => {
    const ending = { phase: 'ending' } as NonNullable<Parameters<typeof dashboardPollMs>[0]>['planEnd'];
    const ended = { phase: 'ended' } as NonNullable<Parameters<typeof dashboardPollMs>[0]>['planEnd'];
    expect(dashboardPollMs({ vmLastState: 'stopped', waitingForDiskCopy: false, planEnd: ending })).toBe(
      DASHBOARD_POLL_MS.planEnding,
    );
    expect(dashboardPollMs({ vmLastState: 'starting', waitingForDiskCopy: false, planEnd: ending })).toBe(
      DASHBOARD_POLL_MS.transition,
    );
    expect(dashboardPollMs({ vmLastState: 'stopped', waitingForDiskCopy: false, planEnd: ended })).toBe(0);
  });

  it('waits for a disk copy at a slower pace: minutes of wait, nothing to show on the way', () => {
    expect(dashboardPollMs({ vmLastState: 'provisioning', waitingForDiskCopy: true })).toBe(
      DASHBOARD_POLL_MS.diskCopy,
    );
    expect(DASHBOARD_POLL_MS.diskCopy).toBeGreaterThan(DASHBOARD_POLL_MS.transition);
    expect(DASHBOARD_POLL_MS.diskCopy).toBeLessThan(DASHBOARD_POLL_MS.running);
  });
});

describe('dashboardPollMs while a Moonlight device is being paired or removed', () => {
  const streaming = (pairing: string | null, removing = false) =>
    ({
      host: '203.0.113.5',
      moonlightSteps: [],
      canPair: true,
      pairBlockedBecause: null,
      pairedDevices: [{ id: 'd', name: 'TV', pairedAt: null, removing, problem: null }],
      pairing: pairing && { id: 'p', name: 'Phone', state: pairing, message: null, startedAt: '' },
      dcvFileUrl: null,
    }) as never;

  it('follows it at the transition pace, and goes back to the running pace once it ends', () => {
    const running = { vmLastState: 'running' as const, waitingForDiskCopy: false };
    expect(dashboardPollMs({ ...running, streaming: streaming('sending') })).toBe(
      DASHBOARD_POLL_MS.transition,
    );
    expect(dashboardPollMs({ ...running, streaming: streaming(null, true) })).toBe(
      DASHBOARD_POLL_MS.transition,
    );
    expect(dashboardPollMs({ ...running, streaming: streaming('refused') })).toBe(DASHBOARD_POLL_MS.running);
    expect(dashboardPollMs({ ...running, streaming: null })).toBe(DASHBOARD_POLL_MS.running);
  });
});
