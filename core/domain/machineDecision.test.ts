import { describe, expect, it } from 'vitest';
import { instanceGone, looksWanted } from './machineDecision.ts';
import { copyProgress, snapshotCloud } from './keptDisk.ts';
import { MACHINE_STATES } from './machineStates.ts';

describe('instanceGone', () => {
  it('calls an instance EC2 is deleting, or has deleted, gone', () => {
    const states = ['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped'] as const;
    expect(states.filter(instanceGone)).toEqual(['shutting-down', 'terminated']);
  });
});

describe('looksWanted: the reads a decision needs besides the row', () => {
  it('reads the restore copy only for a requested machine made from a kept disk', () => {
    const wanting = MACHINE_STATES.filter(
      (state) => looksWanted({ state, hasInstance: false, restoresDisk: true }).restore,
    );
    expect(wanting).toEqual(['requested']);
    expect(looksWanted({ state: 'requested', hasInstance: false, restoresDisk: false }).restore).toBe(false);
  });

  it('reads the launch budget only while a launch may be needed, and the name only on the way to running', () => {
    const budget = MACHINE_STATES.filter(
      (state) => looksWanted({ state, hasInstance: false, restoresDisk: false }).launchBudget,
    );
    expect(budget).toEqual(['requested', 'provisioning']);
    expect(looksWanted({ state: 'provisioning', hasInstance: true, restoresDisk: false }).launchBudget).toBe(
      false,
    );
    const name = MACHINE_STATES.filter(
      (state) => looksWanted({ state, hasInstance: true, restoresDisk: false }).name,
    );
    expect(name).toEqual(['provisioning', 'starting', 'stopping', 'stopped', 'terminating']);
  });
});

describe('copyProgress and snapshotCloud: a kept copy as the kept-disk decision reads it', () => {
  const copy = (state: 'creating' | 'failed', snapshotId: string | null) => ({
    state,
    snapshotId,
    begunAt: 1,
  });

  it('is safe once a copy completed, whatever its rows say now', () => {
    expect(copyProgress('restored', [copy('creating', 'snap-1')])).toEqual({ row: 'restored' });
    expect(copyProgress('kept', [])).toEqual({ row: 'completed' });
  });

  it('follows the copy being taken: not sent yet, or sent and asked about', () => {
    expect(copyProgress('none', [copy('failed', 'snap-0')])).toEqual({ row: 'none' });
    expect(copyProgress('creating', [copy('creating', null)])).toEqual({ row: 'unsent' });
    expect(copyProgress('creating', [copy('failed', 'snap-0'), copy('creating', 'snap-1')])).toMatchObject({
      row: 'creating',
      copy: { snapshotId: 'snap-1' },
    });
  });

  it('reads EC2’s snapshot states as the decision’s four', () => {
    expect(
      [undefined, 'pending', 'completed', 'error', 'recoverable', 'recovering'].map((state) =>
        snapshotCloud(state as Parameters<typeof snapshotCloud>[0]),
      ),
    ).toEqual(['missing', 'pending', 'completed', 'error', 'pending', 'pending']);
  });
});
