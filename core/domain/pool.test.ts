import { describe, expect, it } from 'vitest';
import {
  chooseSpare,
  compareSparesForClaim,
  decidePoolTopUp,
  hotSparesWanted,
  poissonQuantile,
  warmSparesWanted,
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
      name: 'more warm spares than wanted (the size was lowered) launches none, removes none',
      input: { warmSize: 1, warmFilling: 3 },
      warm: 0,
      hot: 0,
    },
    {
      name: 'the warm pool is refilled to its size even with no capacity room',
      input: { warmSize: 1, capacityRoom: 0 },
      warm: 1,
      hot: 0,
    },
    {
      name: 'a claim in the last hour: a second warm spare (one more may come while one boots)',
      input: { warmSize: 1, warmFilling: 1, claimsLastHour: 1 },
      warm: 1,
      hot: 0,
    },
    {
      name: 'twelve claims in the last hour: five warm spares',
      input: { warmSize: 1, warmFilling: 1, claimsLastHour: 12 },
      warm: 4,
      hot: 0,
    },
    {
      name: 'warm spares for demand stay within the capacity room (the size itself does not)',
      input: { warmSize: 2, claimsLastHour: 12, capacityRoom: 1 },
      warm: 2,
      hot: 0,
    },
    {
      name: 'WARM_POOL_SIZE 0: never a warm spare, whatever the demand',
      input: { warmSize: 0, claimsLastHour: 30 },
      warm: 0,
      hot: 0,
    },
    {
      name: 'POOL_HOT 0: never a hot spare, whatever the demand',
      input: { warmFilling: 1, claimsLastHour: 5 },
      warm: 2,
      hot: 0,
    },
    { name: 'no demand: one hot spare', input: { hotMax: 8, warmFilling: 1 }, warm: 0, hot: 1 },
    {
      name: 'one to three claims in the last hour: two hot spares',
      input: { hotMax: 8, warmFilling: 2, claimsLastHour: 3 },
      warm: 0,
      hot: 2,
    },
    {
      name: 'thirty claims in the last hour: seven hot spares (not thirty-one)',
      input: { hotMax: 16, warmFilling: 8, claimsLastHour: 30 },
      warm: 0,
      hot: 7,
    },
    {
      name: 'demand is capped at POOL_HOT',
      input: { hotMax: 3, warmFilling: 8, claimsLastHour: 30 },
      warm: 0,
      hot: 3,
    },
    {
      name: 'spares already filling count against the wanted number',
      input: { hotMax: 8, warmFilling: 4, claimsLastHour: 9, hotFilling: 2 },
      warm: 0,
      hot: 2,
    },
    {
      name: 'more hot spares than wanted launches none (they wait for the next purchases)',
      input: { hotMax: 8, warmFilling: 1, hotFilling: 5 },
      warm: 0,
      hot: 0,
    },
    {
      name: 'hot spares never pass the capacity room',
      input: { hotMax: 8, warmFilling: 4, claimsLastHour: 9, capacityRoom: 2 },
      warm: 0,
      hot: 2,
    },
    {
      name: 'warm spares made in the same top-up use the room first',
      input: { warmSize: 2, hotMax: 8, claimsLastHour: 9, capacityRoom: 5 },
      warm: 4,
      hot: 1,
    },
    {
      name: 'no room at all (more in use than the limit): no hot spare, the warm size still kept',
      input: { hotMax: 3, claimsLastHour: 5, capacityRoom: -4 },
      warm: 1,
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
      `"1 claimed in the last hour; warm 0 of 2 wanted (WARM_POOL_SIZE 1): 1 to launch; hot 0 of 2 wanted (POOL_HOT 3): no capacity room (0)"`,
    );
  });
});

describe('spares wanted for the demand', () => {
  it('hot: enough for the purchases that may come (95 %) while one launches, within POOL_HOT', () => {
    expect([0, 1, 3, 5, 9, 12, 30, 100].map((claims) => hotSparesWanted(99, claims))).toEqual([
      1, 2, 2, 3, 4, 4, 7, 16,
    ]);
    expect(hotSparesWanted(3, 30)).toBe(3);
    expect(hotSparesWanted(0, 4)).toBe(0);
  });

  it('warm: at least WARM_POOL_SIZE, more for a stop’s longer lead; none when it is 0', () => {
    expect([0, 1, 5, 12, 30].map((claims) => warmSparesWanted(1, claims))).toEqual([1, 2, 3, 5, 8]);
    expect(warmSparesWanted(4, 5)).toBe(4);
    expect(warmSparesWanted(0, 30)).toBe(0);
  });

  it('the Poisson quantile: P(N ≤ k) ≥ p at the smallest k, even for a large mean', () => {
    expect(poissonQuantile(0, 0.95)).toBe(0);
    expect(poissonQuantile(0.1, 0.95)).toBe(1);
    expect(poissonQuantile(3, 0.95)).toBe(6);
    // Normal approximation: 1000 + 1.645 × √1000 ≈ 1052.
    expect(poissonQuantile(1000, 0.95)).toBe(1052);
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
