import { createHmac, randomUUID, X509Certificate } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { Socket } from 'node:net';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { HOST_CERT, HOST_KEY, IMPOSTOR_CERT, IMPOSTOR_KEY } from './certs.ts';
import { listenAt, serialQueue } from '../machineServers.ts';

/**
 * What runs on each sandbox machine for game streaming, on the loopback address the sandbox EC2
 * reports as its public IP (only for running instances launched with our user data):
 *
 * - a stand-in for Sunshine's REST API on HTTPS (its own self-signed certificate), basic auth
 *   with the credentials from the machine's user data: `POST /api/pin {pin, name}`,
 *   `GET /api/clients/list`, `POST /api/clients/unpair {uuid}`, answered as Sunshine does (a PIN
 *   is taken only while a Moonlight client waits; the client appears in the list once the
 *   handshake that follows succeeds, which it does only with the right PIN);
 * - the image's health reporter: at boot (again quickly while refused, as a machine does before
 *   its address is known) and then on an interval, a signed report posted from the machine's own
 *   address to the health URL in its user data.
 *
 * Tests and the demo steer it per machine (by address or instance id) through `POST /_control`:
 * who is waiting in Moonlight, Sunshine refusing, timing out or down, an impostor's certificate,
 * faults in the report (unlicensed driver, no display…), reporting off, a clock running fast,
 * devices paired or removed in Sunshine's own page (`pairedHere`, `removedHere`). `GET /_state` lists, per
 * machine address, the PINs and device names received, the paired clients and the reports sent.
 */

export type SunshineHostsOptions = {
  /** Sunshine's API port (47990). */
  port: number;
  profile: 'fast' | 'aws';
  warn: (message: string) => void;
};

type Settings = {
  healthUrl: string;
  healthSecret: string;
  sunshineUsername: string;
  sunshinePassword: string;
};

const Moonlight = z.union([z.enum(['any', 'none']), z.object({ pin: z.string().regex(/^\d{4}$/) })]);

const MachineControl = z.strictObject({
  /** Who waits in Moonlight for a PIN: anyone (any PIN pairs; the default), nobody, or one PIN. */
  moonlight: Moonlight.optional(),
  /** How Sunshine's API answers: normally, never (a timeout), refused connections, 403 or 401. */
  api: z.enum(['ok', 'timeout', 'down', 'forbidden', 'unauthorized']).optional(),
  /** Serve an impostor's certificate (a machine in the middle) instead of the host's own. */
  certificate: z.enum(['own', 'impostor']).optional(),
  /** What the next reports say; unset fields are healthy. */
  health: z
    .strictObject({
      driverLicensed: z.boolean().nullable(),
      gpu: z.boolean(),
      /** The GPU nvidia-smi names (default: the instance type's, "NVIDIA T4" on g4dn, "NVIDIA A10G" on g5). */
      gpuName: z.string().min(1).max(100),
      display: z.boolean(),
      resolution: z.tuple([z.number().int().min(640), z.number().int().min(480), z.number().int().min(24)]),
      /** `false`: the active display is not the virtual one (EC2's basic adapter). */
      virtualDisplay: z.boolean(),
      /** `false`: the virtual display offers no 144 Hz modes. */
      displayModes: z.boolean(),
      sunshineRunning: z.boolean(),
      /** `false`: Sunshine's API refuses the machine's own credentials. */
      sunshineApi: z.boolean(),
      dcvRunning: z.boolean(),
      rdpListening: z.boolean(),
      /** `false`: the task handing the session back to the console after Remote Desktop is missing. */
      consoleHandoff: z.boolean(),
      freeDiskGb: z.number().min(0),
      /** `false`: C: was left at the image's 60 GB on a bigger volume. */
      partitionExtended: z.boolean(),
      /** `false`: Windows Audio stopped and no audio endpoint. */
      audio: z.boolean(),
      /** `false`: no ViGEmBus device. */
      gamepad: z.boolean(),
      /** Report as an image from before sound, gamepads and the display's checks did: without those fields. */
      olderImage: z.boolean(),
    })
    .partial()
    .optional(),
  /** `off`: the machine stops reporting (a stuck reporter); `on` again resumes. */
  reporting: z.enum(['on', 'off']).optional(),
  /** Post a report now (then on the usual interval). */
  reportNow: z.boolean().optional(),
  /** How far the machine's clock runs ahead (negative: behind); its reports are dated by it. */
  clockAheadSeconds: z.number().int().min(-86_400).max(86_400).optional(),
  /**
   * Devices paired or removed in Sunshine's own web page on the machine (or found on a disk
   * brought back from a copy), by name: its client list changes without the dashboard.
   */
  pairedHere: z.array(z.string().min(1).max(80)).max(20).optional(),
  removedHere: z.array(z.string().min(1).max(80)).max(20).optional(),
});
type MachineControl = z.infer<typeof MachineControl>;

export const SunshineControlSchema = z.strictObject({
  /** Keyed by the machine's public IP or its instance id. */
  machines: z.record(z.string().min(1), MachineControl).optional(),
  /**
   * What every machine launched from now on starts with (until replaced; `{}` clears it): a fault
   * a machine must report from its very first report, before anyone knows its address or id.
   */
  defaults: MachineControl.pick({ health: true, reporting: true, api: true }).optional(),
});

type Report = { at: string; status: number; kind: 'boot' | 'interval' | 'now' };

type Machine = {
  instanceId: string;
  instanceType: string;
  address: string;
  settings: Settings;
  server: Server;
  sockets: Set<Socket>;
  timer: NodeJS.Timeout | undefined;
  /** Quick retries left while reports are refused at boot. */
  bootRetries: number;
};

/** What is remembered per instance across restarts of the machine (addresses change; the disk does not). */
type Disk = {
  pins: Array<{ pin: string; name: string; at: string; waiting: boolean }>;
  clients: Array<{ uuid: string; name: string }>;
  unpaired: string[];
  reports: Report[];
  control: Required<
    Pick<MachineControl, 'moonlight' | 'api' | 'certificate' | 'reporting' | 'clockAheadSeconds'>
  > & {
    health: NonNullable<MachineControl['health']>;
  };
};

const TIMING = {
  fast: { intervalMs: 5_000, bootRetryMs: 400, bootRetries: 150, handshakeMs: 200 },
  aws: { intervalMs: 300_000, bootRetryMs: 30_000, bootRetries: 20, handshakeMs: 2_000 },
} as const;

const HOST_FINGERPRINT = new X509Certificate(HOST_CERT).fingerprint256.replaceAll(':', '').toLowerCase();

type RunningMachine = { instanceId: string; instanceType: string; publicIp: string; userData: string | null };

/** The GPU each instance family carries, as nvidia-smi names it. */
function gpuNameOf(instanceType: string): string {
  return instanceType.startsWith('g5.') ? 'NVIDIA A10G' : 'NVIDIA T4';
}

/** Every mode the image's virtual display offers (infra/image/scripts/08-virtual-display.ps1). */
const VDD_RESOLUTIONS = [
  [1280, 720],
  [1280, 800],
  [1600, 900],
  [1920, 1080],
  [1920, 1200],
  [2560, 1440],
  [2560, 1600],
  [3840, 2160],
];
const VDD_RATES = [60, 90, 120, 144];

export type SunshineHosts = {
  port: number;
  sync(running: RunningMachine[]): Promise<void>;
  /** Routes without a prefix: mount at /sandbox/sunshine. */
  router: Router;
  listening(): Record<string, string>;
  close(): Promise<void>;
};

/** The settings line of our user data (`# legend-machine: {json}`), as the image's setup script reads it. */
export function settingsFromUserData(userData: string | null): Settings | null {
  if (!userData) return null;
  const text = Buffer.from(userData, 'base64').toString('utf8');
  const line = text.split('\n').find((l) => l.startsWith('# legend-machine: '));
  if (!line) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(line.slice('# legend-machine: '.length));
  } catch {
    // Not ours: a machine whose user data we did not write runs no configured Sunshine.
    return null;
  }
  const parsed = z
    .object({
      v: z.literal(1),
      healthUrl: z.url(),
      healthSecret: z.string().min(16),
      sunshineUsername: z.string().min(1),
      sunshinePassword: z.string().min(16),
    })
    .safeParse(raw);
  return parsed.success ? parsed.data : null;
}

export function createSunshineHosts(options: SunshineHostsOptions): SunshineHosts {
  const timing = TIMING[options.profile];
  const machines = new Map<string, Machine>();
  const disks = new Map<string, Disk>();
  const failed = new Set<string>();
  const queue = serialQueue(options.warn, 'sandbox Sunshine: hosts');

  let defaults: NonNullable<z.infer<typeof SunshineControlSchema>['defaults']> = {};

  function disk(instanceId: string): Disk {
    let found = disks.get(instanceId);
    if (!found) {
      found = {
        pins: [],
        clients: [],
        unpaired: [],
        reports: [],
        control: {
          moonlight: 'any',
          api: defaults.api ?? 'ok',
          certificate: 'own',
          reporting: defaults.reporting ?? 'on',
          clockAheadSeconds: 0,
          health: { ...defaults.health },
        },
      };
      disks.set(instanceId, found);
    }
    return found;
  }

  async function open(
    instanceId: string,
    instanceType: string,
    address: string,
    settings: Settings,
  ): Promise<void> {
    const state = disk(instanceId);
    const sockets = new Set<Socket>();
    const server = createServer(
      state.control.certificate === 'impostor'
        ? { cert: IMPOSTOR_CERT, key: IMPOSTOR_KEY }
        : { cert: HOST_CERT, key: HOST_KEY },
      (req, res) => {
        const machine = machines.get(instanceId);
        if (!machine) return void res.destroy();
        if (state.control.api === 'timeout') return; // never answers; closed when the machine goes
        serve(machine, state, req, res).catch((error: unknown) => {
          options.warn(`sandbox Sunshine on ${address}: ${(error as Error).message}`);
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status_code: 500, error: (error as Error).message }));
        });
      },
    );
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    const listening = state.control.api !== 'down';
    if (listening) {
      if (
        !(await listenAt(
          server,
          { port: options.port, address, instanceId },
          failed,
          options.warn,
          'sandbox Sunshine',
        ))
      )
        return;
      server.unref();
    }
    const machine: Machine = {
      instanceId,
      instanceType,
      address,
      settings,
      server,
      sockets,
      timer: undefined,
      bootRetries: timing.bootRetries,
    };
    machines.set(instanceId, machine);
    // The reporter runs at boot, whether or not Sunshine does.
    schedule(machine, 0, 'boot');
  }

  async function shut(instanceId: string): Promise<void> {
    const machine = machines.get(instanceId);
    if (!machine) return;
    machines.delete(instanceId);
    clearTimeout(machine.timer);
    for (const socket of machine.sockets) socket.destroy();
    if (machine.server.listening) await new Promise<void>((resolve) => machine.server.close(() => resolve()));
  }

  async function reconcile(running: RunningMachine[]) {
    const wanted = new Map<string, { address: string; instanceType: string; settings: Settings }>();
    for (const r of running) {
      if (!r.publicIp.startsWith('127.')) continue;
      const settings = settingsFromUserData(r.userData);
      if (settings) wanted.set(r.instanceId, { address: r.publicIp, instanceType: r.instanceType, settings });
    }
    await Promise.all(
      [...machines].filter(([id, m]) => wanted.get(id)?.address !== m.address).map(([id]) => shut(id)),
    );
    await Promise.all(
      [...wanted]
        .filter(([id]) => !machines.has(id))
        .map(([id, { address, instanceType, settings }]) => open(id, instanceType, address, settings)),
    );
  }

  /** Restarts a machine's Sunshine (its certificate or listening changed): close, then open again. */
  async function restart(instanceId: string): Promise<void> {
    const machine = machines.get(instanceId);
    if (!machine) return;
    await shut(instanceId);
    await open(instanceId, machine.instanceType, machine.address, machine.settings);
  }

  function schedule(machine: Machine, delayMs: number, kind: Report['kind']): void {
    clearTimeout(machine.timer);
    machine.timer = setTimeout(() => {
      void report(machine, kind);
    }, delayMs);
    machine.timer.unref();
  }

  async function report(machine: Machine, kind: Report['kind']): Promise<void> {
    const state = disk(machine.instanceId);
    if (!machines.has(machine.instanceId)) return;
    if (state.control.reporting === 'off') {
      schedule(machine, timing.intervalMs, 'interval');
      return;
    }
    let status = 0;
    try {
      status = await post(machine, healthReport(machine, state), state.control.clockAheadSeconds);
    } catch (error) {
      options.warn(
        `sandbox Sunshine: health report from ${machine.address} failed: ${(error as Error).message}`,
      );
    }
    state.reports.push({ at: new Date().toISOString(), status, kind });
    if (state.reports.length > 50) state.reports.splice(0, state.reports.length - 50);
    if (!machines.has(machine.instanceId)) return;
    // Refused (most often: reported before the site knew the machine's address): try again soon.
    if (status !== 200 && machine.bootRetries > 0) {
      machine.bootRetries -= 1;
      schedule(machine, timing.bootRetryMs, kind);
      return;
    }
    if (status === 200) machine.bootRetries = 0;
    schedule(machine, timing.intervalMs, 'interval');
  }

  function healthReport(machine: Machine, state: Disk) {
    const h = state.control.health;
    const [width, height, refreshHz] = h.resolution ?? [2560, 1440, 120];
    const display = h.display ?? true;
    const gpu = h.gpu !== false;
    const totalBytes = 115 * 1024 ** 3;
    const report = {
      instanceId: machine.instanceId,
      gpu: {
        name: gpu ? (h.gpuName ?? gpuNameOf(machine.instanceType)) : null,
        driverVersion: gpu ? '591.59' : null,
        licensed: gpu ? (h.driverLicensed === undefined ? true : h.driverLicensed) : null,
      },
      display: display
        ? {
            present: true,
            width,
            height,
            refreshHz,
            virtual: h.virtualDisplay ?? true,
            modes: VDD_RESOLUTIONS.flatMap(([w, hh]) =>
              VDD_RATES.filter((hz) => h.displayModes !== false || hz !== 144).map(
                (hz) => `${w}x${hh}@${hz}`,
              ),
            ),
          }
        : { present: false, width: null, height: null, refreshHz: null, virtual: null, modes: null },
      // The host's own certificate, even while an impostor answers in the middle.
      sunshine: {
        running: h.sunshineRunning ?? state.control.api !== 'down',
        certSha256: HOST_FINGERPRINT,
        // Asked on the machine itself: only refused credentials (or no Sunshine) fail it, not the network.
        apiAnswers: h.sunshineApi ?? (state.control.api !== 'unauthorized' && state.control.api !== 'down'),
      },
      dcv: { running: h.dcvRunning ?? true },
      rdp: { listening: h.rdpListening ?? true, consoleHandoff: h.consoleHandoff ?? true },
      disk: {
        freeBytes: Math.round((h.freeDiskGb ?? 80) * 1024 ** 3),
        totalBytes: h.partitionExtended === false ? Math.round(59.4 * 1024 ** 3) : totalBytes,
        unallocatedBytes: h.partitionExtended === false ? Math.round(55.6 * 1024 ** 3) : 0,
      },
      audio:
        h.audio === false
          ? { serviceRunning: false, endpoint: null }
          : { serviceRunning: true, endpoint: 'Steam Streaming Speakers' },
      gamepad: { busPresent: h.gamepad !== false, xinput: true },
    };
    if (!h.olderImage) return report;
    // What an image from before these checks sends: none of their fields.
    const { audio: _audio, gamepad: _gamepad, ...older } = report;
    return {
      ...older,
      display: {
        present: report.display.present,
        width: report.display.width,
        height: report.display.height,
        refreshHz: report.display.refreshHz,
      },
      sunshine: { running: report.sunshine.running, certSha256: report.sunshine.certSha256 },
      rdp: { listening: report.rdp.listening },
      disk: { freeBytes: report.disk.freeBytes, totalBytes: report.disk.totalBytes },
    };
  }

  /** Signed as the image's reporter signs: HMAC-SHA256 of `<unix seconds>.<body>`, from the machine's address. */
  function post(machine: Machine, body: unknown, clockAheadSeconds: number): Promise<number> {
    const text = JSON.stringify(body);
    const timestamp = Math.floor(Date.now() / 1000) + clockAheadSeconds;
    const mac = createHmac('sha256', machine.settings.healthSecret)
      .update(`${timestamp}.${text}`)
      .digest('hex');
    const url = new URL(machine.settings.healthUrl);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'POST',
          localAddress: machine.address,
          // The machine has an IPv4 address: `localhost` must resolve to 127.0.0.1 for it.
          family: 4,
          timeout: 10_000,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'x-legend-timestamp': String(timestamp),
            'x-legend-signature': `v1=${mac}`,
          },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        },
      );
      req.once('timeout', () => req.destroy(new Error('timed out')));
      req.once('error', reject);
      req.end(text);
    });
  }

  async function serve(
    machine: Machine,
    state: Disk,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://sunshine').pathname;
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (state.control.api === 'forbidden') return json(403, { status_code: 403, error: 'Forbidden' });
    const expected = `Basic ${Buffer.from(`${machine.settings.sunshineUsername}:${machine.settings.sunshinePassword}`).toString('base64')}`;
    if (state.control.api === 'unauthorized' || req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="Sunshine Gamestream Host", charset="UTF-8"' });
      res.end();
      return;
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return json(400, { status_code: 400, status: false, error: 'Content type mismatch' });
    }
    if (req.method === 'POST' && path === '/api/pin') {
      const { pin, name } = (body ?? {}) as { pin?: unknown; name?: unknown };
      if (typeof pin !== 'string' || !/^\d{1,4}$/.test(pin))
        return json(400, { status_code: 400, status: false, error: 'PIN must be between 0000 and 9999' });
      const deviceName = typeof name === 'string' ? name : '';
      const waiting = state.control.moonlight;
      state.pins.push({ pin, name: deviceName, at: new Date().toISOString(), waiting: waiting !== 'none' });
      if (waiting === 'none' || pin.length !== 4) return json(200, { status: false });
      // The PIN goes to the waiting client; the handshake that follows succeeds only if it matches.
      if (typeof waiting === 'object') state.control.moonlight = 'none';
      const right = waiting === 'any' || waiting.pin === pin;
      if (right) {
        setTimeout(() => {
          state.clients.push({ uuid: randomUUID().toUpperCase(), name: deviceName });
        }, timing.handshakeMs).unref();
      }
      return json(200, { status: true });
    }
    if (req.method === 'GET' && path === '/api/clients/list') {
      return json(200, {
        status: true,
        named_certs: state.clients.map((c) => ({ name: c.name, uuid: c.uuid, enabled: true })),
      });
    }
    if (req.method === 'POST' && path === '/api/clients/unpair') {
      const uuid = (body as { uuid?: unknown } | undefined)?.uuid;
      const index = state.clients.findIndex((c) => c.uuid === uuid);
      if (index >= 0) {
        state.clients.splice(index, 1);
        state.unpaired.push(String(uuid));
      }
      return json(200, { status: index >= 0 });
    }
    return json(404, { status_code: 404, error: 'Not Found' });
  }

  const router = new Router();
  router.get('/_state', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    await queue.settled();
    const hosts: Record<string, unknown> = {};
    for (const machine of machines.values()) {
      const state = disk(machine.instanceId);
      hosts[machine.address] = {
        instanceId: machine.instanceId,
        listening: machine.server.listening,
        pins: state.pins,
        clients: state.clients,
        unpaired: state.unpaired,
        reports: state.reports,
        control: state.control,
      };
    }
    ctx.body = { port: options.port, hosts, defaults };
  });
  router.post('/_control', koaBody({ jsonLimit: '64kb', urlencoded: false, text: false }), async (ctx) => {
    const parsed = SunshineControlSchema.safeParse(ctx.request.body);
    if (!parsed.success) {
      ctx.status = 400;
      ctx.body = { message: 'not a sandbox Sunshine control request', issues: parsed.error.issues };
      return;
    }
    await queue.settled();
    if (parsed.data.defaults !== undefined) defaults = parsed.data.defaults;
    const unknown: string[] = [];
    for (const [key, change] of Object.entries(parsed.data.machines ?? {})) {
      const machine = [...machines.values()].find((m) => m.address === key || m.instanceId === key);
      const instanceId = machine?.instanceId ?? (key.startsWith('i-') ? key : null);
      if (!instanceId) {
        unknown.push(key);
        continue;
      }
      const state = disk(instanceId);
      const restartNeeded =
        (change.certificate !== undefined && change.certificate !== state.control.certificate) ||
        (change.api !== undefined && (change.api === 'down') !== (state.control.api === 'down'));
      if (change.moonlight !== undefined) state.control.moonlight = change.moonlight;
      if (change.api !== undefined) state.control.api = change.api;
      if (change.certificate !== undefined) state.control.certificate = change.certificate;
      if (change.reporting !== undefined) state.control.reporting = change.reporting;
      if (change.clockAheadSeconds !== undefined) state.control.clockAheadSeconds = change.clockAheadSeconds;
      if (change.health !== undefined) state.control.health = { ...state.control.health, ...change.health };
      for (const name of change.pairedHere ?? [])
        state.clients.push({ uuid: randomUUID().toUpperCase(), name });
      for (const name of change.removedHere ?? [])
        state.clients = state.clients.filter((c) => c.name !== name);
      if (machine && restartNeeded) await restart(instanceId);
      const current = machines.get(instanceId);
      if (
        current &&
        (change.reportNow || change.health !== undefined || change.clockAheadSeconds !== undefined)
      )
        schedule(current, 0, 'now');
    }
    if (unknown.length > 0) {
      ctx.status = 404;
      ctx.body = { message: `no running sandbox machine at ${unknown.join(', ')}` };
      return;
    }
    ctx.status = 204;
  });

  return {
    port: options.port,
    router,
    sync(running) {
      return queue.run(() => reconcile(running));
    },
    listening() {
      return Object.fromEntries([...machines].map(([id, m]) => [id, `${m.address}:${options.port}`]));
    },
    async close() {
      await queue.settled();
      await Promise.all([...machines.keys()].map(shut));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
