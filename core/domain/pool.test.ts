import { describe, expect, it } from 'vitest';
import {
  chooseSpare,
  compareSparesForClaim,
  decidePoolTopUp,
  hotSparesWanted,
  type PoolTopUpInput,
  type SpareFacts,
} from './pool.ts';

const base: PoolTopUpInput = {
  warmSize: 1,
  hotMax: 0,
  claimsLastHour: 0,
  capacityRoom: 10,
  warmFilling: 0,
  hotFilling: 0,
};

describe('decidePoolTopUp', () => {
  const cases: Array<{ name: string; input: Partial<PoolTopUpInput>; warm: number; hot: number }> = [
    { name: 'an empty warm pool is filled to its size', input: { warmSize: 2 }, warm: 2, hot: 0 },
    { name: 'a full warm pool launches nothing', input: { warmSize: 2, warmFilling: 2 }, warm: 0, hot: 0 },
    {
      name: 'more warm spares than the size (the size was lowered) launches none, removes none',
      input: { warmSize: 1, warmFilling: 3 },
      warm: 0,
      hot: 0,
    },
    {
      name: 'the warm pool is refilled even with no capacity room',
      input: { warmSize: 1, capacityRoom: 0 },
      warm: 1,
      hot: 0,
    },
    {
      name: 'POOL_HOT 0: never a hot spare, whatever the demand',
      input: { claimsLastHour: 5 },
      warm: 1,
      hot: 0,
    },
    { name: 'no demand: one hot spare', input: { hotMax: 3, warmFilling: 1 }, warm: 0, hot: 1 },
    {
      name: 'one plus one per claim in the last hour',
      input: { hotMax: 3, warmFilling: 1, claimsLastHour: 1 },
      warm: 0,
      hot: 2,
    },
    {
      name: 'demand is capped at POOL_HOT',
      input: { hotMax: 3, warmFilling: 1, claimsLastHour: 9 },
      warm: 0,
      hot: 3,
    },
    {
      name: 'spares already filling count against the wanted number',
      input: { hotMax: 3, warmFilling: 1, claimsLastHour: 2, hotFilling: 2 },
      warm: 0,
      hot: 1,
    },
    {
      name: 'more hot spares than wanted launches none',
      input: { hotMax: 3, warmFilling: 1, hotFilling: 3 },
      warm: 0,
      hot: 0,
    },
    {
      name: 'hot spares never pass the capacity room',
      input: { hotMax: 3, warmFilling: 1, claimsLastHour: 5, capacityRoom: 2 },
      warm: 0,
      hot: 2,
    },
    {
      name: 'warm spares made in the same top-up use the room first',
      input: { warmSize: 2, hotMax: 3, claimsLastHour: 5, capacityRoom: 3 },
      warm: 2,
      hot: 1,
    },
    {
      name: 'no room at all (more in use than the limit): no hot spare',
      input: { hotMax: 3, warmFilling: 1, capacityRoom: -4 },
      warm: 0,
      hot: 0,
    },
  ];
  for (const { name, input, warm, hot } of cases) {
    it(name, () => {
      expect(decidePoolTopUp({ ...base, ...input })).toMatchObject({ warm, hot });
    });
  }

  it('says why', () => {
    expect(
      decidePoolTopUp({ ...base, hotMax: 3, claimsLastHour: 1, capacityRoom: 1 }).reason,
    ).toMatchInlineSnapshot(
      `"warm 0 of 1: 1 to launch; hot 0 of 2 wanted (1 + 1 claimed in the last hour, POOL_HOT 3): no capacity room (0)"`,
    );
  });
});

describe('hotSparesWanted', () => {
  it('is one plus the last hour’s claims, within POOL_HOT', () => {
    expect([0, 1, 2, 5].map((claims) => hotSparesWanted(3, claims))).toEqual([1, 2, 3, 3]);
    expect(hotSparesWanted(0, 4)).toBe(0);
  });
});

describe('chooseSpare', () => {
  const machine = { planId: 'legend', instanceType: 'g4dn.xlarge', storageGb: 115, restoring: false };
  const spare = (over: Partial<SpareFacts>): SpareFacts => ({
    id: 'a',
    planId: 'legend',
    instanceType: 'g4dn.xlarge',
    storageGb: 115,
    state: 'ready',
    hot: false,
    readyAt: 1_000,
    ...over,
  });

  it('takes a hot spare before an older warm one', () => {
    const choice = chooseSpare(machine, [
      spare({ id: 'w', readyAt: 1 }),
      spare({ id: 'h', hot: true, readyAt: 9 }),
    ]);
    expect(choice).toMatchObject({ kind: 'hot', spare: { id: 'h' } });
  });

  it('takes the warm spare ready longest, the id breaking ties', () => {
    expect(
      chooseSpare(machine, [
        spare({ id: 'c', readyAt: 5 }),
        spare({ id: 'b', readyAt: 2 }),
        spare({ id: 'a', readyAt: 2 }),
      ]),
    ).toMatchObject({ kind: 'warm', spare: { id: 'a' } });
  });

  it('launches when no spare fits: another plan, type or disk, or not ready yet', () => {
    const choice = chooseSpare(machine, [
      spare({ id: '1', planId: 'pro-legend' }),
      spare({ id: '2', instanceType: 'g5.xlarge' }),
      spare({ id: '3', storageGb: 225 }),
      spare({ id: '4', state: 'launching', hot: true }),
      spare({ id: '5', state: 'claimed' }),
    ]);
    expect(choice.kind).toBe('launch');
  });

  it('never gives a spare to a machine that brings back a kept disk', () => {
    expect(chooseSpare({ ...machine, restoring: true }, [spare({ hot: true })]).kind).toBe('launch');
  });

  it('orders by the claim rule whatever the input order', () => {
    const spares = [
      spare({ id: 'd', readyAt: 3 }),
      spare({ id: 'b', hot: true, readyAt: 7 }),
      spare({ id: 'c', readyAt: 1 }),
      spare({ id: 'a', hot: true, readyAt: 7 }),
    ];
    expect([...spares].sort(compareSparesForClaim).map((s) => s.id)).toEqual(['a', 'b', 'c', 'd']);
  });
});
