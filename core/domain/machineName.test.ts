import { describe, expect, it } from 'vitest';
import { decideMachine, nextStep } from './lifecycle.ts';
import { stepRule, type LifecycleInput } from './machineDecision.ts';
import {
  claimName,
  connectAddress,
  decideName,
  isDnsSuffix,
  machineHostName,
  machineLabel,
  machineNameView,
  NAME_ALERT_AFTER_MS,
  NAME_SINK_ADDRESS,
  nameAwayFirst,
  nameTarget,
  nameFirst,
  type NameFacts,
  type NameInput,
  type PreviousName,
} from './machineName.ts';

/** A name's label: `pc-` and 8 of Crockford's base32 letters, lowercase (no i, l, o, u). */
const LABEL_PATTERN = /^pc-[0-9a-hjkmnp-tv-z]{8}$/;

const NOW = new Date('2026-06-10T12:00:00Z');
const MIN = 60_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

const NAME: NameFacts = {
  label: 'pc-7k2m9q4x',
  pointsTo: '13.0.0.1',
  failingSince: null,
  alertedAt: null,
  released: false,
};
const running = (ip: string) => ({ state: 'running', publicIp: ip });
const input = (over: Partial<NameInput>): NameInput => ({
  zone: true,
  machine: running('13.0.0.2'),
  name: NAME,
  record: undefined,
  now: NOW,
  ...over,
});

describe('the name itself', () => {
  it('is pc- and eight letters of 32, from random bytes, nothing of the customer', () => {
    const label = machineLabel(Uint8Array.from([0, 1, 31, 32, 255, 100, 7, 64]));
    expect(label).toBe('pc-01z0z470');
    expect(label).toMatch(LABEL_PATTERN);
    // No letter that reads like another (i, l, o, u) can come out.
    const all = machineLabel(Uint8Array.from({ length: 8 }, (_, i) => i * 4 + 3));
    expect(all).not.toMatch(/[ilou]/);
    expect(() => machineLabel(new Uint8Array(4))).toThrow(RangeError);
  });

  it('is the label under the zone, the suffix written either way', () => {
    expect(machineHostName('pc-7k2m9q4x', 'Play.LegendCloud.in.')).toBe('pc-7k2m9q4x.play.legendcloud.in');
    expect(isDnsSuffix('play.legendcloud.in')).toBe(true);
    expect(isDnsSuffix('.play.legendcloud.in.')).toBe(true);
    for (const bad of ['localhost', 'play..in', 'pl ay.in', '-play.in', 'play.in/x', ''])
      expect(isDnsSuffix(bad), bad).toBe(false);
  });
});

describe('decideName: when the record is written, corrected, deleted, and when an operator is told', () => {
  it.each([
    ['no zone', 'nothing', input({ zone: false })],
    ['no name yet', 'nothing', input({ name: null })],
    ['released with its machine', 'nothing', input({ name: { ...NAME, released: true } })],
    ['running where the record already points', 'nothing', input({ machine: running('13.0.0.1') })],
    [
      'stopped: is its record still at the address it gave back?',
      'observe',
      input({ machine: { state: 'stopped', publicIp: null } }),
    ],
    [
      'stopped, its name already at the sink',
      'nothing',
      input({
        machine: { state: 'stopped', publicIp: null },
        name: { ...NAME, pointsTo: NAME_SINK_ADDRESS },
      }),
    ],
    [
      'starting, no address yet: its start points the name',
      'nothing',
      input({ machine: { state: 'starting', publicIp: null } }),
    ],
    ['running at a new address, not looked at', 'observe', input({})],
    ['gone, not looked at', 'observe', input({ machine: { state: 'terminated', publicIp: null } })],
    [
      'error (instance lost), not looked at',
      'observe',
      input({ machine: { state: 'error', publicIp: null } }),
    ],
    [
      'gone and its record too',
      'forget',
      input({ machine: { state: 'terminated', publicIp: null }, record: null }),
    ],
  ])('%s → %s', (_, kind, given) => {
    expect(decideName(given).kind).toBe(kind);
  });

  it('points the name at a new address; our own old address is no drift', () => {
    expect(decideName(input({ record: { ip: '13.0.0.1', ttl: 30 } }))).toMatchObject({
      kind: 'upsert',
      ip: '13.0.0.2',
      drift: null,
    });
    expect(decideName(input({ record: null }))).toMatchObject({
      kind: 'upsert',
      ip: '13.0.0.2',
      drift: null,
    });
  });

  it('a record pointing at an address we never wrote is corrected and named as drift (an alert)', () => {
    expect(decideName(input({ record: { ip: '198.51.100.9', ttl: 300 } }))).toMatchObject({
      kind: 'upsert',
      ip: '13.0.0.2',
      drift: '198.51.100.9',
    });
  });

  it('a record already pointing where it should is remembered, not written again', () => {
    expect(decideName(input({ record: { ip: '13.0.0.2', ttl: 30 } }))).toMatchObject({
      kind: 'confirm',
      ip: '13.0.0.2',
    });
  });

  it('a failing name is tried again even where we last pointed it', () => {
    const failing = { ...NAME, failingSince: at(-MIN) };
    expect(decideName(input({ name: failing, machine: running('13.0.0.1') })).kind).toBe('observe');
  });

  it('deletes the record of a gone machine exactly as it is (and looks again after)', () => {
    const record = { ip: '13.0.0.1', ttl: 30 };
    expect(decideName(input({ machine: { state: 'terminated', publicIp: null }, record }))).toEqual({
      kind: 'delete',
      reason: expect.any(String),
      record,
    });
  });

  it('a failing name whose machine stopped is still taken to the sink, and alerted: the old address may be a stranger’s', () => {
    const failing = { ...NAME, failingSince: at(-MIN) };
    for (const state of ['stopped', 'stopping'])
      expect(decideName(input({ name: failing, machine: { state, publicIp: null } })).kind).toBe('observe');
    const stuck = decideName(
      input({
        name: { ...NAME, failingSince: at(-20 * MIN) },
        machine: { state: 'stopped', publicIp: null },
      }),
    );
    expect(stuck).toMatchObject({ kind: 'alert', meanwhile: expect.stringMatching(/another AWS customer/) });
    const running = decideName(input({ name: { ...NAME, failingSince: at(-20 * MIN) } }));
    expect(running).toMatchObject({
      kind: 'alert',
      meanwhile: 'The customer is shown the IP address meanwhile.',
    });
  });

  it('tells an operator once, after 10 minutes of failing, before trying again', () => {
    const since = (ms: number) => ({ ...NAME, failingSince: at(-ms) });
    expect(decideName(input({ name: since(NAME_ALERT_AFTER_MS - 1) })).kind).toBe('observe');
    expect(decideName(input({ name: since(NAME_ALERT_AFTER_MS) })).kind).toBe('alert');
    expect(decideName(input({ name: { ...since(NAME_ALERT_AFTER_MS), alertedAt: at(-1) } })).kind).toBe(
      'observe',
    );
    // A gone machine whose delete keeps failing is alerted too.
    expect(
      decideName(
        input({ name: since(20 * MIN), machine: { state: 'terminated', publicIp: null }, record: undefined }),
      ).kind,
    ).toBe('alert');
  });
});

describe('while the PC has no address of ours, its name leads to the sink, never to an address we gave back', () => {
  const away = (state: string) => ({ state, publicIp: null });
  const OLD = { ip: '13.0.0.1', ttl: 30 };
  const SINK = { ip: NAME_SINK_ADDRESS, ttl: 30 };

  it('the sink is a documentation address (RFC 5737 TEST-NET-1): nobody’s, never routed', () => {
    expect(NAME_SINK_ADDRESS).toMatch(/^192\.0\.2\.\d{1,3}$/);
  });

  it.each([
    ['stopping, record at the address it gives back: to the sink', 'stopping', OLD, 'upsert', null],
    ['stopped, record at the address it gave back: to the sink', 'stopped', OLD, 'upsert', null],
    ['being deleted, record at its address: to the sink', 'terminating', OLD, 'upsert', null],
    ['stopped, no record at all: to the sink', 'stopped', null, 'upsert', null],
    ['stopped, record already at the sink: remembered', 'stopped', SINK, 'confirm', null],
    [
      'stopped, record edited by someone: to the sink, and alerted',
      'stopped',
      { ip: '198.51.100.9', ttl: 300 },
      'upsert',
      '198.51.100.9',
    ],
  ] as const)('%s', (_, state, record, kind, drift) => {
    const decision = decideName(input({ machine: away(state), record }));
    expect(decision).toMatchObject({ kind, ip: NAME_SINK_ADDRESS });
    if (decision.kind === 'upsert') expect(decision.drift).toBe(drift);
  });

  it('where the name should lead, state by state', () => {
    const ok = { failingSince: null };
    const failing = { failingSince: at(-MIN) };
    expect(nameTarget(running('13.0.0.2'), ok)).toBe('13.0.0.2');
    expect(nameTarget({ state: 'running', publicIp: null }, ok)).toBe(NAME_SINK_ADDRESS);
    for (const state of ['stopping', 'stopped', 'terminating'])
      expect(nameTarget(away(state), ok), state).toBe(NAME_SINK_ADDRESS);
    // On the way to running the sink its stop set stays until `nameFirst` points it, unless a write
    // is still failing (the stop's sink may never have got there).
    for (const state of ['requested', 'provisioning', 'starting']) {
      expect(nameTarget(away(state), ok), state).toBeNull();
      expect(nameTarget(away(state), failing), state).toBe(NAME_SINK_ADDRESS);
    }
    for (const state of ['terminated', 'error']) expect(nameTarget(away(state), failing), state).toBeNull();
  });

  it('at START the sink is ours: pointed at the new address with no drift alert', () => {
    expect(decideName(input({ record: SINK }))).toMatchObject({
      kind: 'upsert',
      ip: '13.0.0.2',
      drift: null,
    });
    const sunk = { ...NAME, pointsTo: NAME_SINK_ADDRESS };
    expect(decideName(input({ name: sunk, record: SINK }))).toMatchObject({ kind: 'upsert', drift: null });
    // Someone else's address is still drift, whatever we last wrote.
    expect(decideName(input({ name: sunk, record: { ip: '198.51.100.9', ttl: 300 } }))).toMatchObject({
      kind: 'upsert',
      drift: '198.51.100.9',
    });
  });

  it('a gone machine’s record is deleted as it is, the sink included', () => {
    expect(decideName(input({ machine: away('terminated'), record: SINK }))).toEqual({
      kind: 'delete',
      reason: expect.any(String),
      record: SINK,
    });
  });

  it('nameAwayFirst: only a name we pointed at an address, once per run', () => {
    expect(nameAwayFirst(undefined, undefined)).toBeNull();
    expect(nameAwayFirst({ pointsTo: null }, undefined)).toBeNull();
    expect(nameAwayFirst({ pointsTo: NAME_SINK_ADDRESS }, undefined)).toBeNull();
    expect(nameAwayFirst({ pointsTo: '13.0.0.1' }, 'name-failed')).toBeNull();
    expect(nameAwayFirst({ pointsTo: '13.0.0.1' }, undefined)?.kind).toBe('sink-name');
  });
});

describe('the lifecycle points the name before it shows a machine running', () => {
  const limits = { missingGraceMs: 5 * MIN, maxStartAttempts: 6, maxLaunchAttempts: 8 };
  const plan = { status: 'active', expiresAt: at(10 * 86_400_000), hours: 30 };
  const machine = {
    id: 'vm-1',
    state: 'starting' as const,
    source: 'launch' as const,
    instanceId: 'i-0abc',
    launchAttempts: 1,
    startAttempts: 1,
    passwordStored: true,
    usageSeconds: 0,
    usageCountedAt: null,
    launchedAt: at(-60 * MIN),
    startRequestedAt: at(-MIN),
    stoppedAt: at(-30 * MIN),
  };
  const starting: LifecycleInput = {
    machine,
    plan,
    cloud: { state: 'running', publicIp: '13.0.0.2', vmTag: 'vm-1' },
    now: NOW,
    limits,
  };

  it('without a zone, as before: marked running', () => {
    expect(decideMachine(starting)).toMatchObject({ kind: 'mark-running', publicIp: '13.0.0.2' });
  });

  it('with a zone: the name first, then running once it points there', () => {
    const pointName = decideMachine({ ...starting, name: { pointsTo: '13.0.0.1' } });
    expect(pointName).toMatchObject({ kind: 'point-name', publicIp: '13.0.0.2' });
    expect(stepRule(pointName)).toEqual({ place: 'cloud', sweep: true, then: 'go-on' });
    expect(nextStep({ ...starting, name: { pointsTo: '13.0.0.1' } }, 'sweep').kind).toBe('point-name');
    expect(decideMachine({ ...starting, name: { pointsTo: '13.0.0.2' } }).kind).toBe('mark-running');
  });

  it('Route 53 failing does not hold the machine: shown running with its address', () => {
    expect(decideMachine({ ...starting, name: { pointsTo: null }, lastTry: 'name-failed' }).kind).toBe(
      'mark-running',
    );
  });

  it('a new machine: Remote Desktop answers, then the name, then ready', () => {
    const provisioning: LifecycleInput = {
      ...starting,
      machine: { ...machine, state: 'provisioning', startRequestedAt: null },
      remoteDesktop: 'open',
      name: { pointsTo: null },
    };
    expect(decideMachine(provisioning).kind).toBe('point-name');
    expect(decideMachine({ ...provisioning, remoteDesktop: undefined }).kind).toBe('probe-remote-desktop');
    expect(decideMachine({ ...provisioning, name: { pointsTo: '13.0.0.2' } }).kind).toBe('mark-ready');
  });

  it('a STOP takes the name off the address first, then stops the instance; Route 53 failing does not hold the stop', () => {
    const stopping: LifecycleInput = {
      ...starting,
      machine: { ...machine, state: 'stopping' },
      name: { pointsTo: '13.0.0.2' },
    };
    const sink = decideMachine(stopping);
    expect(sink.kind).toBe('sink-name');
    expect(stepRule(sink)).toEqual({ place: 'cloud', sweep: true, then: 'go-on' });
    expect(nextStep(stopping, 'sweep').kind).toBe('sink-name');
    expect(decideMachine({ ...stopping, name: { pointsTo: NAME_SINK_ADDRESS } }).kind).toBe('stop');
    expect(decideMachine({ ...stopping, lastTry: 'name-failed' }).kind).toBe('stop');
    expect(decideMachine({ ...stopping, name: undefined }).kind).toBe('stop');
  });

  it('a machine found stopped (shut down from Windows), or being deleted, has its name taken off first', () => {
    const stopped: LifecycleInput = {
      ...starting,
      machine: { ...machine, state: 'stopped' },
      cloud: { state: 'stopped', publicIp: null, vmTag: 'vm-1' },
      name: { pointsTo: '13.0.0.2' },
    };
    expect(decideMachine(stopped).kind).toBe('sink-name');
    expect(decideMachine({ ...stopped, name: { pointsTo: NAME_SINK_ADDRESS } }).kind).toBe('nothing');
    const deleting: LifecycleInput = {
      ...starting,
      machine: { ...machine, state: 'terminating', keepDisk: false },
      name: { pointsTo: '13.0.0.2' },
    };
    expect(decideMachine(deleting).kind).toBe('sink-name');
    expect(decideMachine({ ...deleting, name: { pointsTo: NAME_SINK_ADDRESS } }).kind).toBe('terminate');
  });

  it('nameFirst alone', () => {
    expect(nameFirst(undefined, '13.0.0.2', undefined)).toBeNull();
    expect(nameFirst({ pointsTo: '13.0.0.2' }, '13.0.0.2', undefined)).toBeNull();
    expect(nameFirst({ pointsTo: null }, '13.0.0.2', 'name-failed')).toBeNull();
    expect(nameFirst({ pointsTo: null }, '13.0.0.2', 'start-failed')?.kind).toBe('point-name');
  });
});

describe('what the dashboard shows and the files name', () => {
  const row = { label: 'pc-7k2m9q4x', pointsTo: '13.0.0.2', released: false };
  const suffix = 'play.legendcloud.in';
  const host = 'pc-7k2m9q4x.play.legendcloud.in';

  it('the name once it leads to the PC; the IP while it is being updated; nothing to connect to while stopped', () => {
    const current = machineNameView(row, suffix, running('13.0.0.2'));
    expect(current).toEqual({ host, current: true });
    expect(connectAddress(current, '13.0.0.2')).toBe(host);
    const updating = machineNameView(row, suffix, running('13.0.0.9'));
    expect(updating).toEqual({ host, current: false });
    expect(connectAddress(updating, '13.0.0.9')).toBe('13.0.0.9');
    const stopped = machineNameView(row, suffix, { state: 'stopped', publicIp: null });
    expect(stopped).toEqual({ host, current: null });
    expect(connectAddress(stopped, null)).toBeNull();
  });

  it('no name without a zone, for a released one, or for a gone machine', () => {
    expect(machineNameView(row, null, running('13.0.0.2'))).toBeNull();
    expect(machineNameView({ ...row, released: true }, suffix, running('13.0.0.2'))).toBeNull();
    expect(machineNameView(row, suffix, { state: 'terminated', publicIp: null })).toBeNull();
    expect(machineNameView(null, suffix, running('13.0.0.2'))).toBeNull();
    expect(connectAddress(null, '13.0.0.2')).toBe('13.0.0.2');
  });
});

describe('claimName: the name follows the customer to their next machine, never to anyone else', () => {
  const CUSTOMER = '00000000-0000-4000-8000-00000000000a';
  const OTHER = '00000000-0000-4000-8000-00000000000b';
  const previous = (over: Partial<PreviousName>): PreviousName => ({
    label: 'pc-7k2m9q4x',
    userId: CUSTOMER,
    released: false,
    holderState: 'terminated',
    ...over,
  });

  it('a customer who never had a name gets a fresh one', () => {
    expect(claimName({ userId: CUSTOMER }, null).kind).toBe('fresh');
  });

  it("takes over the customer's previous name once its machine is gone or the name released", () => {
    for (const holder of [
      previous({ released: true, holderState: 'terminated' }),
      previous({ released: false, holderState: 'terminated' }),
      previous({ released: false, holderState: 'error' }),
      previous({ released: true, holderState: 'error' }),
    ])
      expect(claimName({ userId: CUSTOMER }, holder), JSON.stringify(holder)).toMatchObject({
        kind: 'take-over',
        label: 'pc-7k2m9q4x',
      });
  });

  it('waits while the previous machine is not gone (its termination lags): never a fresh name meanwhile', () => {
    for (const holderState of ['terminating', 'running', 'stopped', 'stopping', 'starting', 'provisioning'])
      expect(claimName({ userId: CUSTOMER }, previous({ holderState })), holderState).toMatchObject({
        kind: 'wait',
        label: 'pc-7k2m9q4x',
      });
  });

  it("another customer's name is never taken over, released or not", () => {
    for (const holder of [
      previous({ userId: OTHER, released: true }),
      previous({ userId: OTHER, holderState: 'terminated' }),
      previous({ userId: OTHER, holderState: 'terminating' }),
    ])
      expect(claimName({ userId: CUSTOMER }, holder).kind).toBe('fresh');
  });

  it("a name taken over with the old machine's record still there is pointed at the new address, no drift, no delete", () => {
    const claim = claimName({ userId: CUSTOMER }, previous({ holderState: 'terminated' }));
    expect(claim.kind).toBe('take-over');
    // The take-over keeps what our last write set, so the record left behind is recognised as ours.
    const taken = { ...NAME, label: 'pc-7k2m9q4x', pointsTo: '13.0.0.1' };
    expect(
      decideName(input({ name: taken, record: { ip: '13.0.0.1', ttl: 30 }, machine: running('13.0.0.9') })),
    ).toMatchObject({ kind: 'upsert', ip: '13.0.0.9', drift: null });
    // Taken over from a released name: no record, written afresh.
    const released = { ...taken, pointsTo: null };
    expect(decideName(input({ name: released, record: null, machine: running('13.0.0.9') }))).toMatchObject({
      kind: 'upsert',
      ip: '13.0.0.9',
      drift: null,
    });
  });
});
