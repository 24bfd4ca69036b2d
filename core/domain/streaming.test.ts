import { describe, expect, it } from 'vitest';
import { machineUserData, MACHINE_CONFIG_MARKER } from './machineSetup.ts';
import { machineSettingsOf } from '../../tests/support/machineSettings.ts';
import {
  dcvFile,
  deviceNameProblem,
  failureRetryable,
  moonlightSteps,
  newlyPairedClient,
  normaliseDeviceName,
  outcomeOfFailure,
  reconcileClients,
  UNNAMED_DEVICE,
  PAIRING_OUTCOMES,
  pairingAnswer,
  pairingRefusal,
  PIN_PATTERN,
  STREAMING_INGRESS,
  STREAMING_MESSAGES,
  streamingIngressResults,
  streamingView,
} from './streaming.ts';

describe('PIN and device name', () => {
  it.each([
    ['0417', true],
    ['1234', true],
    ['123', false],
    ['12345', false],
    ['12a4', false],
    [' 1234', false],
    ['١٢٣٤', false],
  ])('PIN %j is %s', (pin, ok) => {
    expect(PIN_PATTERN.test(pin)).toBe(ok);
  });

  it.each([
    ['  Living   room TV ', 'Living room TV', null],
    ['Pixel 8 (Riya’s)', 'Pixel 8 (Riya’s)', null],
    ['   ', null, STREAMING_MESSAGES.deviceNameMissing],
    ['x'.repeat(41), 'x'.repeat(41), STREAMING_MESSAGES.deviceNameTooLong],
    ['<script>', '<script>', STREAMING_MESSAGES.deviceNameFormat],
    ['-dash first', '-dash first', STREAMING_MESSAGES.deviceNameFormat],
    ['डेस्कटॉप', 'डेस्कटॉप', null],
  ])('device name %j', (raw, normal, problem) => {
    expect(normaliseDeviceName(raw)).toBe(normal);
    expect(deviceNameProblem(normaliseDeviceName(raw))).toBe(problem);
  });
});

describe('pairing', () => {
  const host = '13.232.10.4';

  it('answers 200 only when paired; every other outcome says what to do, with the address', () => {
    for (const outcome of PAIRING_OUTCOMES) {
      const answer = pairingAnswer(outcome, host, 'Phone');
      if (outcome === 'paired') {
        expect(answer).toMatchObject({ state: 'paired', status: 200, alert: false });
        continue;
      }
      expect(answer.status, outcome).toBeGreaterThanOrEqual(400);
      expect(answer.status, outcome).toBeLessThan(500);
      expect(answer.message.length, outcome).toBeGreaterThan(20);
    }
    expect(pairingAnswer('no-moonlight-waiting', host, 'Phone').message).toContain(
      'Open Moonlight, add host 13.232.10.4, then type the PIN it shows within 2 minutes',
    );
  });

  it('alerts us for faults on our side, not for a PIN the customer missed', () => {
    const alerting = PAIRING_OUTCOMES.filter((o) => pairingAnswer(o, host, 'x').alert);
    expect(alerting).toEqual(['unreachable', 'untrusted', 'credentials-refused', 'host-refused']);
  });

  it('maps what Sunshine did to an outcome, retrying only network trouble', () => {
    expect(outcomeOfFailure('timeout')).toBe('unreachable');
    expect(outcomeOfFailure('unreachable')).toBe('unreachable');
    expect(outcomeOfFailure('untrusted')).toBe('untrusted');
    expect(outcomeOfFailure('unauthorized')).toBe('credentials-refused');
    expect(outcomeOfFailure('forbidden')).toBe('host-refused');
    expect(failureRetryable('timeout')).toBe(true);
    expect(failureRetryable('untrusted')).toBe(false);
  });

  it('finds the device a PIN paired: new since the PIN, under the name we gave', () => {
    const before = [{ uuid: 'a', name: 'Laptop' }];
    expect(newlyPairedClient(before, before, 'Phone')).toBeNull();
    expect(newlyPairedClient(before, [...before, { uuid: 'b', name: 'Phone' }], 'Phone')).toEqual({
      uuid: 'b',
      name: 'Phone',
    });
    // An old client of the same name is not the new one.
    expect(
      newlyPairedClient([{ uuid: 'a', name: 'Phone' }], [{ uuid: 'a', name: 'Phone' }], 'Phone'),
    ).toBeNull();
  });

  it('needs a running machine whose streaming host has reported', () => {
    const ready = { reported: true, sunshineRunning: true, certificatePinned: true };
    expect(pairingRefusal({ state: 'running', publicIp: host }, ready, 'pair')).toBeNull();
    expect(pairingRefusal({ state: 'stopped', publicIp: null }, ready, 'pair')?.message).toMatch(
      /^Start your PC first/,
    );
    expect(pairingRefusal({ state: 'stopped', publicIp: null }, ready, 'remove')?.message).toMatch(
      /^Start your PC first/,
    );
    expect(
      pairingRefusal({ state: 'running', publicIp: host }, { ...ready, certificatePinned: false }, 'pair')
        ?.message,
    ).toBe(STREAMING_MESSAGES.hostNotReady);
    expect(
      pairingRefusal({ state: 'running', publicIp: host }, { ...ready, sunshineRunning: false }, 'pair')
        ?.message,
    ).toBe(STREAMING_MESSAGES.hostDown);
  });

  it('names the address in the Moonlight steps once the PC runs', () => {
    expect(moonlightSteps(host)[1]).toContain(host);
    expect(moonlightSteps(null)[1]).toContain('public IP');
    expect(moonlightSteps('pc-7k2m9q4x.play.legendcloud.in', true)[1]).toMatch(
      /type pc-7k2m9q4x\.play\.legendcloud\.in\. You add it once: the name stays the same every time your PC starts\./,
    );
  });
});

describe('ports', () => {
  it("opens Moonlight's, DCV's and keeps Sunshine's API for the worker", () => {
    const rule = (protocol: string, port: number) =>
      STREAMING_INGRESS.find((r) => r.protocol === protocol && r.from <= port && port <= r.to);
    for (const port of [47984, 47989, 48010, 8443]) expect(rule('tcp', port)?.source).toBe('anyone');
    for (const port of [47998, 47999, 48000, 48010, 8443]) expect(rule('udp', port)?.source).toBe('anyone');
    expect(rule('tcp', 47990)?.source).toBe('worker');
  });
});

describe('dcvFile', () => {
  it('is the connection file DCV clients open: the machine, port 8443, the console session, the token', () => {
    expect(dcvFile('13.232.10.4', 'tok_abcdefghijklmnop')).toBe(
      '[version]\r\nformat=1.0\r\n\r\n[connect]\r\nhost=13.232.10.4\r\nport=8443\r\nsessionid=console\r\nauthtoken=tok_abcdefghijklmnop\r\n',
    );
  });

  it('refuses anything that is not an address and a token', () => {
    expect(() => dcvFile('13.232.10.4\r\nhost=evil', 'tok_abcdefghijklmnop')).toThrow();
    expect(() => dcvFile('pc-7k2m9q4x.play.in\r\nhost=evil', 'tok_abcdefghijklmnop')).toThrow();
    expect(dcvFile('pc-7k2m9q4x.play.legendcloud.in', 'tok_abcdefghijklmnop')).toContain(
      'host=pc-7k2m9q4x.play.legendcloud.in\r\nport=8443\r\n',
    );
    expect(() => dcvFile('13.232.10.4', 'a\nb')).toThrow();
  });
});

describe('machine user data', () => {
  const settings = {
    v: 1 as const,
    healthUrl: 'https://legendcloud.in/api/machine/health',
    healthSecret: 'h'.repeat(43),
    sunshineUsername: 'legend-0123456789abcdef',
    sunshinePassword: 'p'.repeat(32),
  };

  it('is an EC2Launch v2 document running the setup script, with the settings on a comment line', () => {
    const data = machineUserData(settings);
    expect(data.startsWith('version: 1.1\ntasks:\n- task: executeScript\n')).toBe(true);
    expect(data).toContain("& 'C:\\ProgramData\\LegendCloud\\machine-setup.ps1'");
    const lines = data.split('\n').filter((l) => l.startsWith(MACHINE_CONFIG_MARKER));
    expect(lines).toHaveLength(1);
    expect(machineSettingsOf(data)).toEqual(settings);
    expect(Buffer.byteLength(data)).toBeLessThan(16 * 1024);
  });

  it('refuses values that could break out of the line', () => {
    expect(() => machineUserData({ ...settings, sunshinePassword: 'x\n- task: evil' })).toThrow();
    expect(() => machineUserData({ ...settings, healthUrl: 'javascript:alert(1)' })).toThrow();
  });
});

describe('streamingIngressResults', () => {
  const anyone = ['0.0.0.0/0'];
  const complete = [
    { protocol: 'tcp', from: 47984, to: 47989, cidrs: anyone },
    { protocol: 'tcp', from: 48010, to: 48010, cidrs: anyone },
    { protocol: 'udp', from: 47998, to: 48010, cidrs: anyone },
    { protocol: 'udp', from: 8443, to: 8443, cidrs: anyone },
    { protocol: 'tcp', from: 47990, to: 47990, cidrs: ['203.0.113.10/32', '198.51.100.0/28'] },
  ];
  const worker = ['203.0.113.10/32', '198.51.100.0/28'];
  const ok = (results: Array<{ ok: boolean }>) => results.map((r) => r.ok);

  it('passes a group that opens the streaming ports and keeps Sunshine to the worker', () => {
    expect(ok(streamingIngressResults(complete, worker))).toEqual([true, true, true]);
    // A bare address is its /32.
    expect(ok(streamingIngressResults(complete, ['198.51.100.0/28', '203.0.113.10'])).at(2)).toBe(true);
    // A rule wider than the worker's addresses opens it to the rest of the range.
    expect(ok(streamingIngressResults(complete, ['198.51.100.4/32', '203.0.113.10/32'])).at(2)).toBe(false);
  });

  it('names what Moonlight is missing', () => {
    const [moonlight] = streamingIngressResults(complete.slice(1), worker);
    expect(moonlight?.ok).toBe(false);
    expect(moonlight?.detail).toBe('no inbound TCP 47984, TCP 47989: Moonlight cannot reach Sunshine');
  });

  it("fails Sunshine's API open to the internet, or to all traffic", () => {
    for (const open of [
      { protocol: 'tcp', from: 47990, to: 47990, cidrs: anyone },
      { protocol: '-1', from: null, to: null, cidrs: ['10.0.0.0/8'] },
      { protocol: 'tcp', from: 40000, to: 50000, cidrs: ['203.0.113.0/24'] },
    ]) {
      const api = streamingIngressResults([...complete, open], worker).at(2);
      expect(api?.ok, JSON.stringify(open)).toBe(false);
      expect(api?.detail).toMatch(/is open to/);
    }
  });

  it('fails when the worker cannot reach it, or nobody said where the worker is', () => {
    expect(streamingIngressResults(complete.slice(0, 4), worker).at(2)?.detail).toMatch(
      /the worker cannot pair/,
    );
    expect(streamingIngressResults(complete, []).at(2)?.detail).toMatch(/WORKER_EGRESS_CIDRS is not set/);
  });
});

describe('streamingView', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const ready = { reported: true, sunshineRunning: true, certificatePinned: true };
  const row = (over: Partial<Parameters<typeof streamingView>[0]['pairings'][number]>) => ({
    id: 'p',
    name: 'TV',
    state: 'paired' as const,
    outcome: 'paired',
    message: 'TV is paired. Open your PC in Moonlight to play.',
    createdAt: at(30),
    pairedAt: at(30),
    finishedAt: at(30),
    ...over,
  });

  it('lists paired devices without their success message, and a failed removal with its reason', () => {
    const view = streamingView({
      machine: { state: 'running', publicIp: '13.232.10.4' },
      host: ready,
      pairings: [
        row({ id: 'a', name: 'TV' }),
        row({ id: 'b', name: 'Phone', outcome: 'unreachable', message: 'We could not reach…' }),
        row({ id: 'c', name: 'Old', state: 'removed' }),
      ],
      now,
    });
    expect(view.pairedDevices.map((d) => [d.name, d.problem])).toEqual([
      ['TV', null],
      ['Phone', 'We could not reach…'],
    ]);
    expect(view).toMatchObject({ host: '13.232.10.4', canPair: true, dcvFileUrl: '/api/vm/dcv-file' });
  });

  it('shows the newest attempt while it runs and for ten minutes after', () => {
    const base = { machine: { state: 'running', publicIp: '13.232.10.4' }, host: ready, now };
    const sending = row({
      id: 'n',
      state: 'sending',
      outcome: null,
      message: null,
      finishedAt: null,
      createdAt: at(0),
    });
    expect(streamingView({ ...base, pairings: [sending, row({})] }).pairing?.id).toBe('n');
    const refused = row({ id: 'r', state: 'refused', outcome: 'no-moonlight-waiting', finishedAt: at(5) });
    expect(streamingView({ ...base, pairings: [refused] }).pairing?.state).toBe('refused');
    expect(streamingView({ ...base, pairings: [{ ...refused, finishedAt: at(11) }] }).pairing).toBeNull();
  });

  it('after Remove, neither the device nor the answer of any attempt before the removal is shown', () => {
    const base = { machine: { state: 'running', publicIp: '13.232.10.4' }, host: ready, now };
    const refused = row({ id: 'r', state: 'refused', outcome: 'no-moonlight-waiting', finishedAt: at(5) });
    const removed = row({ id: 'a', state: 'removed', removedAt: at(2) });
    const view = streamingView({ ...base, pairings: [refused, removed] });
    expect(view.pairedDevices).toEqual([]);
    expect(view.pairing).toBeNull();
    expect(view.pairedNote).toBeNull();
    // One refused after the removal is still news.
    expect(
      streamingView({ ...base, pairings: [{ ...refused, finishedAt: at(1) }, removed] }).pairing?.id,
    ).toBe('r');
  });

  it('after a restart a paired device is still paired, an answer from before the start is not shown, and the note says what to open', () => {
    const started = at(3);
    const refused = row({ id: 'r', state: 'refused', outcome: 'no-moonlight-waiting', finishedAt: at(5) });
    const tv = row({ id: 'a', name: 'TV', pairedAt: at(60), finishedAt: at(60) });
    const named = streamingView({
      machine: { state: 'running', publicIp: '13.232.10.99' },
      host: ready,
      pairings: [refused, tv],
      now,
      runningSince: started,
      namesEnabled: true,
      name: { host: 'pc-7k2m9q4x.play.legendcloud.in', current: true },
    });
    expect(named.pairedDevices.map((d) => d.name)).toEqual(['TV']);
    expect(named.pairing).toBeNull();
    expect(named).toMatchObject({ host: 'pc-7k2m9q4x.play.legendcloud.in', named: true });
    expect(named.pairedNote).toBe(
      'Your paired devices stay paired when your PC restarts: in Moonlight, open pc-7k2m9q4x.play.legendcloud.in.',
    );
    expect(named.addressNote).toMatch(/stays the same every time your PC starts/);
    const unnamed = streamingView({
      machine: { state: 'running', publicIp: '13.232.10.99' },
      host: ready,
      pairings: [tv],
      now,
      runningSince: started,
      namesEnabled: false,
    });
    expect(unnamed).toMatchObject({ host: '13.232.10.99', named: false });
    expect(unnamed.pairedNote).toMatch(/add host 13\.232\.10\.99 \(no new PIN needed\)/);
    expect(unnamed.addressNote).toMatch(
      /new IP address every time it starts\. After each START, add the new address/,
    );
  });

  it('while the name is being updated, the IP is what to add, and the card says so', () => {
    const view = streamingView({
      machine: { state: 'running', publicIp: '13.232.10.99' },
      host: ready,
      pairings: [],
      now,
      namesEnabled: true,
      name: { host: 'pc-7k2m9q4x.play.legendcloud.in', current: false },
    });
    expect(view).toMatchObject({ host: '13.232.10.99', named: false });
    expect(view.addressNote).toMatch(/being updated\. Until it is, connect with the IP address/);
  });

  it('running with no name yet where names are on (it waits for the previous machine to be gone): the IP, and the card says the name is on its way', () => {
    const view = streamingView({
      machine: { state: 'running', publicIp: '13.232.10.99' },
      host: ready,
      pairings: [],
      now,
      namesEnabled: true,
      name: null,
    });
    expect(view).toMatchObject({ host: '13.232.10.99', named: false });
    expect(view.addressNote).toMatch(/being updated\. Until it is, connect with the IP address/);
    expect(view.addressNote).not.toMatch(/stays the same/);
  });

  it('marks devices found on the PC, without a problem line', () => {
    const view = streamingView({
      machine: { state: 'running', publicIp: '13.232.10.4' },
      host: ready,
      pairings: [
        row({ id: 'f', name: 'Old phone', outcome: 'found-on-pc', message: null, origin: 'machine' }),
      ],
      now,
    });
    expect(view.pairedDevices).toEqual([
      expect.objectContaining({ name: 'Old phone', foundOnPc: true, problem: null }),
    ]);
  });

  it('offers nothing to pair with while the PC is stopped, and says why', () => {
    const view = streamingView({
      machine: { state: 'stopped', publicIp: null },
      host: ready,
      pairings: [],
      now,
    });
    expect(view).toMatchObject({ host: null, canPair: false, dcvFileUrl: null });
    expect(view.pairBlockedBecause).toBe(STREAMING_MESSAGES.startFirst);
  });
});

describe("reconcileClients: the paired devices follow Sunshine's own list on the PC", () => {
  const read = new Date('2026-06-10T12:00:00Z');
  const paired = (id: string, uuid: string, pairedAt = new Date('2026-06-09T12:00:00Z')) => ({
    id,
    state: 'paired' as const,
    clientUuid: uuid,
    pairedAt,
  });

  it('lists clients no row names (their own name, or a plain one), and drops rows Sunshine no longer knows', () => {
    const result = reconcileClients(
      [paired('a', 'u-1'), paired('b', 'u-2')],
      [
        { uuid: 'u-1', name: 'TV' },
        { uuid: 'u-3', name: '  Old   phone ' },
        { uuid: 'u-4', name: '' },
        { uuid: 'u-4', name: 'twice' },
      ],
      read,
    );
    expect(result).toEqual({
      found: [
        { uuid: 'u-3', name: 'Old phone' },
        { uuid: 'u-4', name: UNNAMED_DEVICE },
      ],
      gone: ['b'],
    });
  });

  it('leaves a device paired after the list was read, and does nothing while a pairing is in flight', () => {
    expect(reconcileClients([paired('a', 'u-1', new Date('2026-06-10T12:00:01Z'))], [], read).gone).toEqual(
      [],
    );
    expect(
      reconcileClients(
        [paired('a', 'u-1'), { id: 'p', state: 'confirming', clientUuid: null, pairedAt: null }],
        [{ uuid: 'u-9', name: 'New' }],
        read,
      ),
    ).toEqual({ found: [], gone: [] });
  });
});
