import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { readRawBody } from '../body.ts';
import { utilisation, type SeriesKind } from './series.ts';

/**
 * A stand-in for the CloudWatch API that the real `@aws-sdk/client-cloudwatch` talks to: AWS
 * JSON 1.0 at `POST /` (mounted at /sandbox/cloudwatch), `x-amz-target:
 * GraniteServiceVersion20100801.<Operation>`, epoch-second timestamps, and CloudWatch's error
 * shape (`__type` in the body, `x-amzn-query-error: Code;Sender` for the SDK's query-compatible
 * error codes). GetMetricData and PutMetricData are simulated.
 *
 * Metrics it knows without being told:
 * - `AWS/EC2` `CPUUtilization` by `InstanceId`, as EC2 reports it for every instance.
 * - `LegendCloud/GPU` `GPUUtilization` by `InstanceId`. CloudWatch has no GPU metric for
 *   Windows instances (the agent's `nvidia_smi_*` metrics are Linux-only), so our Windows images
 *   run a small poller (a scheduled task reading `nvidia-smi --query-gpu=utilization.gpu` once a
 *   minute) that calls PutMetricData with exactly this namespace, name and dimension. The sandbox
 *   plays that poller.
 *
 * Values are made up from the instance id and time (series.ts), only while the instance runs
 * (the `fleet` option: the EC2 stand-in's state), as CloudWatch has no points for a stopped
 * machine. Points sent with PutMetricData replace the made-up ones for their series. Tests
 * inject errors and script series (any metric, per instance: the agent's session counter,
 * NetworkOut, a GPU pinned at 95 %, a metric that stops arriving) through `/_control`.
 */

const GPU_NAMESPACE = 'LegendCloud/GPU';
const GPU_METRIC = 'GPUUtilization';

/** The machines as the EC2 stand-in sees them (its `/_state` shape, the fields used here). */
export type Fleet = {
  /** The EC2 stand-in's clock (tests may move it), ISO. */
  now: string;
  instances: ReadonlyArray<{ instanceId: string; state: string; launchTime: string }>;
};

export type SandboxCloudWatchOptions = {
  /** Milliseconds since the epoch, when there is no fleet. */
  now?: () => number;
  /**
   * The EC2 stand-in's machines and clock, read once per request: only running instances
   * have points, from their last start on. Without it every instance id counts as always
   * running.
   */
  fleet?: () => Fleet;
};

export type SandboxCloudWatch = {
  /** Routes without a prefix: mount at /sandbox/cloudwatch. */
  router: Router;
  control(input: z.input<typeof ControlSchema>): void;
  reset(): void;
};

/** Instance id → when it last started (epoch ms), for the fleet's running instances. */
function runningSince(fleet: Fleet): Map<string, number> {
  const running = new Map<string, number>();
  for (const instance of fleet.instances) {
    if (instance.state === 'running') running.set(instance.instanceId, Date.parse(instance.launchTime));
  }
  return running;
}

/** Query error code → the exception the SDK names, its status and whose fault it is. */
const ERRORS: Record<string, { type: string; status: number; fault: 'Sender' | 'Receiver' }> = {
  InvalidParameterValue: { type: 'InvalidParameterValueException', status: 400, fault: 'Sender' },
  InvalidParameterCombination: { type: 'InvalidParameterCombinationException', status: 400, fault: 'Sender' },
  MissingParameter: { type: 'MissingRequiredParameterException', status: 400, fault: 'Sender' },
  LimitExceeded: { type: 'LimitExceededException', status: 400, fault: 'Sender' },
  InvalidNextToken: { type: 'InvalidNextToken', status: 400, fault: 'Sender' },
  InternalServiceError: { type: 'InternalServiceFault', status: 500, fault: 'Receiver' },
  Throttling: { type: 'ThrottlingException', status: 400, fault: 'Sender' },
  AccessDenied: { type: 'AccessDeniedException', status: 403, fault: 'Sender' },
  MissingAuthenticationToken: { type: 'MissingAuthenticationTokenException', status: 403, fault: 'Sender' },
  UnknownOperation: { type: 'UnknownOperationException', status: 400, fault: 'Sender' },
  ServiceUnavailable: { type: 'ServiceUnavailableException', status: 503, fault: 'Receiver' },
};

class CloudWatchError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status?: number) {
    super(message);
    this.code = code;
    this.status = status ?? ERRORS[code]?.status ?? 400;
  }
}

const invalid = (message: string) => new CloudWatchError('InvalidParameterValue', message);

const ControlSchema = z.strictObject({
  faults: z
    .array(
      z.strictObject({
        /** An operation name, or '*' for every operation. */
        action: z.string().min(1),
        code: z.string().min(1),
        message: z.string().optional(),
        status: z.number().int().min(400).max(599).optional(),
        times: z.number().int().min(1).optional(),
      }),
    )
    .optional(),
  clearFaults: z.boolean().optional(),
  /**
   * Scripted series, per instance and metric: from `from` until `to` (epoch ms; open-ended when
   * left out) every period has `value`, or no point at all when `value` is null (a metric
   * that stopped arriving). `value` is one minute's datapoint: a `Sum` over a longer period
   * adds one per minute. Later entries win where they overlap. Scripts take precedence over
   * made-up and PutMetricData points; like them, they exist only while the instance runs.
   */
  series: z
    .array(
      z.strictObject({
        instanceId: z.string().min(1),
        namespace: z.string().min(1),
        metricName: z.string().min(1),
        value: z.number().nullable(),
        from: z.number().optional(),
        to: z.number().optional(),
      }),
    )
    .optional(),
  clearSeries: z.boolean().optional(),
});

type Script = { value: number | null; from: number; to: number };

type Fault = {
  action: string;
  code: string;
  message?: string | undefined;
  status?: number | undefined;
  times: number;
};

const Dimension = z.object({ Name: z.string().min(1), Value: z.string().min(1) });
const Metric = z.object({
  Namespace: z.string().min(1),
  MetricName: z.string().min(1),
  Dimensions: z.array(Dimension).max(30).optional(),
});
const Query = z.object({
  Id: z.string(),
  MetricStat: z
    .object({ Metric, Period: z.number().int(), Stat: z.string().min(1), Unit: z.string().optional() })
    .optional(),
  Expression: z.string().optional(),
  Label: z.string().optional(),
  ReturnData: z.boolean().optional(),
  Period: z.number().int().optional(),
  AccountId: z.string().optional(),
});
const GetMetricDataInput = z.object({
  MetricDataQueries: z.array(Query),
  StartTime: z.number(),
  EndTime: z.number(),
  NextToken: z.string().optional(),
  ScanBy: z.enum(['TimestampDescending', 'TimestampAscending']).optional(),
  MaxDatapoints: z.number().int().positive().optional(),
  LabelOptions: z.object({ Timezone: z.string().optional() }).optional(),
});
const PutMetricDataInput = z.object({
  Namespace: z.string().min(1).max(255),
  MetricData: z
    .array(
      z.object({
        MetricName: z.string().min(1).max(255),
        Dimensions: z.array(Dimension).max(30).optional(),
        Timestamp: z.number().optional(),
        Value: z.number().optional(),
        Values: z.array(z.number()).optional(),
        Counts: z.array(z.number()).optional(),
        Unit: z.string().optional(),
        StorageResolution: z.number().int().optional(),
      }),
    )
    .optional(),
});

const MAX_QUERIES = 500;
/** Points kept per series sent with PutMetricData, and series kept: a sandbox, not a database. */
const MAX_POINTS_PER_SERIES = 5_000;
const MAX_SERIES = 20_000;
const ID_PATTERN = /^[a-z][a-zA-Z0-9_]*$/;

function seriesKey(
  namespace: string,
  metricName: string,
  dimensions: z.infer<typeof Dimension>[] = [],
): string {
  const dims = [...dimensions]
    .sort((a, b) => a.Name.localeCompare(b.Name))
    .map((d) => `${d.Name}=${d.Value}`)
    .join(',');
  return `${namespace}|${metricName}|${dims}`;
}

/** Which made-up series a metric is, if any: the EC2 CPU metric or our GPU metric, by instance. */
function knownSeries(metric: z.infer<typeof Metric>): { kind: SeriesKind; instanceId: string } | null {
  const dims = metric.Dimensions ?? [];
  if (dims.length !== 1 || dims[0]?.Name !== 'InstanceId') return null;
  const instanceId = dims[0].Value;
  if (metric.Namespace === 'AWS/EC2' && metric.MetricName === 'CPUUtilization')
    return { kind: 'cpu', instanceId };
  if (metric.Namespace === GPU_NAMESPACE && metric.MetricName === GPU_METRIC)
    return { kind: 'gpu', instanceId };
  return null;
}

function aggregate(stat: string, values: number[]): number {
  if (stat === 'Maximum') return Math.max(...values);
  if (stat === 'Minimum') return Math.min(...values);
  if (stat === 'Sum') return values.reduce((s, v) => s + v, 0);
  if (stat === 'SampleCount') return values.length;
  return values.reduce((s, v) => s + v, 0) / values.length;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const raw = await readRawBody(req, () => invalid('The request body is too large.'));
  // The SDK gzips PutMetricData bodies above 10 KB (request compression).
  if (req.headers['content-encoding'] === 'gzip') {
    try {
      return gunzipSync(raw).toString('utf8');
    } catch {
      throw invalid('The request body is not valid gzip.');
    }
  }
  return raw.toString('utf8');
}

export function createSandboxCloudWatch(options: SandboxCloudWatchOptions = {}): SandboxCloudWatch {
  const now = options.now ?? Date.now;
  let faults: Fault[] = [];
  /** PutMetricData's points: series key → [epoch ms, value], oldest first. */
  const stored = new Map<string, Array<[number, number]>>();
  /** Scripted series: series key → rules, oldest first (the last covering one wins). */
  const scripts = new Map<string, Script[]>();

  function scripted(key: string, at: number): Script | undefined {
    const rules = scripts.get(key);
    if (!rules) return undefined;
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i]!;
      if (at >= rule.from && at < rule.to) return rule;
    }
    return undefined;
  }

  function checkFaults(action: string): void {
    const index = faults.findIndex((f) => f.action === action || f.action === '*');
    const fault = faults[index];
    if (!fault) return;
    fault.times -= 1;
    if (fault.times <= 0) faults.splice(index, 1);
    throw new CloudWatchError(fault.code, fault.message ?? `Injected ${fault.code}.`, fault.status);
  }

  function getMetricData(body: unknown): unknown {
    const parsed = GetMetricDataInput.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path.join('.') ?? '';
      if (issue?.code === 'invalid_type' && issue.input === undefined) {
        throw new CloudWatchError('MissingParameter', `The parameter ${path} is required.`);
      }
      throw invalid(`The value for parameter ${path} is not valid.`);
    }
    const input = parsed.data;
    if (input.MetricDataQueries.length === 0)
      throw new CloudWatchError('MissingParameter', 'The parameter MetricDataQueries is required.');
    if (input.MetricDataQueries.length > MAX_QUERIES) {
      throw invalid(`The collection MetricDataQueries must not have a size greater than ${MAX_QUERIES}.`);
    }
    if (input.StartTime >= input.EndTime)
      throw invalid('The parameter StartTime must be less than the parameter EndTime.');
    const ids = new Set<string>();
    input.MetricDataQueries.forEach((q, i) => {
      const where = `MetricDataQueries.member.${i + 1}`;
      if (!ID_PATTERN.test(q.Id))
        throw invalid(
          `The value ${q.Id} for parameter ${where}.Id is not valid: it must start with a lowercase letter.`,
        );
      if (ids.has(q.Id)) throw invalid(`The value ${q.Id} for parameter ${where}.Id is not unique.`);
      ids.add(q.Id);
      if (q.Expression !== undefined)
        throw invalid(`${where}: the sandbox does not evaluate metric math expressions.`);
      if (!q.MetricStat)
        throw new CloudWatchError('MissingParameter', `The parameter ${where}.MetricStat is required.`);
      const period = q.MetricStat.Period;
      if (!(period > 0 && (period % 60 === 0 || [1, 5, 10, 30].includes(period)))) {
        throw invalid(`The parameter ${where}.MetricStat.Period must be 1, 5, 10, 30 or a multiple of 60.`);
      }
    });

    const fleet = options.fleet?.();
    const t = fleet ? Date.parse(fleet.now) : now();
    const running = fleet ? runningSince(fleet) : undefined;
    const startMs = input.StartTime * 1000;
    const endMs = Math.min(input.EndTime * 1000, t);
    const descending = (input.ScanBy ?? 'TimestampDescending') === 'TimestampDescending';

    const series = input.MetricDataQueries.filter((q) => q.ReturnData !== false).map((q) => {
      const stat = q.MetricStat!;
      const periodMs = stat.Period * 1000;
      const points: Array<[number, number]> = [];
      const key = seriesKey(stat.Metric.Namespace, stat.Metric.MetricName, stat.Metric.Dimensions);
      const own = stored.get(key);
      const known = knownSeries(stat.Metric);
      const since = known ? (running ? running.get(known.instanceId) : -Infinity) : undefined;
      const dims = stat.Metric.Dimensions ?? [];
      const scriptedInstance =
        scripts.has(key) && dims.length === 1 && dims[0]?.Name === 'InstanceId' ? dims[0].Value : undefined;
      const scriptSince =
        scriptedInstance === undefined ? undefined : running ? running.get(scriptedInstance) : -Infinity;
      for (let p = Math.floor(startMs / periodMs) * periodMs; p < endMs; p += periodMs) {
        const rule = scriptSince !== undefined ? scripted(key, p) : undefined;
        if (rule) {
          if (rule.value !== null && scriptSince !== undefined && p + periodMs > scriptSince) {
            const value = stat.Stat === 'Sum' ? rule.value * (stat.Period / 60) : rule.value;
            points.push([p, value]);
          }
        } else if (own) {
          const inPeriod = own.filter(([at]) => at >= p && at < p + periodMs).map(([, v]) => v);
          if (inPeriod.length > 0) points.push([p, Math.round(aggregate(stat.Stat, inPeriod) * 1000) / 1000]);
        } else if (known && since !== undefined && p + periodMs > since) {
          const value = utilisation(known.kind, known.instanceId, p);
          const spread = stat.Stat === 'Maximum' ? 6 : stat.Stat === 'Minimum' ? -6 : 0;
          points.push([p, Math.min(100, Math.max(0, Math.round((value + spread) * 10) / 10))]);
        }
      }
      if (descending) points.reverse();
      return { id: q.Id, label: q.Label ?? stat.Metric.MetricName, points };
    });

    // Pages hold at most MaxDatapoints points across all queries, in query order.
    const max = input.MaxDatapoints ?? 100_800;
    let offset = 0;
    if (input.NextToken) {
      offset = Number(Buffer.from(input.NextToken, 'base64url').toString('utf8'));
      if (!Number.isInteger(offset) || offset < 0)
        throw new CloudWatchError('InvalidNextToken', 'The NextToken is not valid.');
    }
    const total = series.reduce((sum, s) => sum + s.points.length, 0);
    const pageEnd = Math.min(total, offset + max);
    let cursor = 0;
    const results = series.map((s) => {
      const from = Math.max(0, offset - cursor);
      const to = Math.max(0, Math.min(s.points.length, pageEnd - cursor));
      const page = s.points.slice(from, Math.max(from, to));
      const complete = cursor + s.points.length <= pageEnd;
      cursor += s.points.length;
      return {
        Id: s.id,
        Label: s.label,
        Timestamps: page.map(([at]) => at / 1000),
        Values: page.map(([, v]) => v),
        StatusCode: complete ? 'Complete' : 'PartialData',
      };
    });
    return {
      MetricDataResults: results,
      ...(pageEnd < total ? { NextToken: Buffer.from(String(pageEnd)).toString('base64url') } : {}),
      Messages: [],
    };
  }

  function putMetricData(body: unknown): unknown {
    const parsed = PutMetricDataInput.safeParse(body);
    if (!parsed.success) throw invalid('The request is not a valid PutMetricData request.');
    const { Namespace, MetricData = [] } = parsed.data;
    if (Namespace.startsWith('AWS/'))
      throw invalid(`The value ${Namespace} for parameter Namespace is invalid.`);
    if (MetricData.length > 1000)
      throw invalid('The collection MetricData must not have a size greater than 1000.');
    const fleet = options.fleet?.();
    const t = fleet ? Date.parse(fleet.now) : now();
    for (const datum of MetricData) {
      const at = datum.Timestamp !== undefined ? datum.Timestamp * 1000 : t;
      let value = datum.Value;
      if (value === undefined && datum.Values?.length) {
        const counts = datum.Counts ?? datum.Values.map(() => 1);
        const weight = counts.reduce((s, c) => s + c, 0) || 1;
        value = datum.Values.reduce((s, v, i) => s + v * (counts[i] ?? 1), 0) / weight;
      }
      if (value === undefined) continue;
      const key = seriesKey(Namespace, datum.MetricName, datum.Dimensions);
      let points = stored.get(key);
      if (!points) {
        if (stored.size >= MAX_SERIES)
          throw new CloudWatchError('LimitExceeded', 'The sandbox holds too many series.');
        points = [];
        stored.set(key, points);
      }
      points.push([at, value]);
      points.sort((a, b) => a[0] - b[0]);
      if (points.length > MAX_POINTS_PER_SERIES) points.splice(0, points.length - MAX_POINTS_PER_SERIES);
    }
    return {};
  }

  async function handle(ctx: Context): Promise<void> {
    const requestId = randomUUID();
    ctx.set('x-amzn-requestid', requestId);
    ctx.set('Cache-Control', 'no-cache, no-store');
    try {
      const text = await readBody(ctx.req);
      if (!ctx.get('authorization')) {
        throw new CloudWatchError('MissingAuthenticationToken', 'Request is missing Authentication Token');
      }
      const target = ctx.get('x-amz-target');
      const [service, operation = ''] = target.split('.');
      if (service !== 'GraniteServiceVersion20100801') {
        throw new CloudWatchError('UnknownOperation', `Unknown operation ${target || '(none)'}.`);
      }
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        throw invalid('The request body is not valid JSON.');
      }
      checkFaults(operation);
      let answer: unknown;
      if (operation === 'GetMetricData') answer = getMetricData(body);
      else if (operation === 'PutMetricData') answer = putMetricData(body);
      else
        throw new CloudWatchError(
          'UnknownOperation',
          `The sandbox does not simulate the operation ${operation}.`,
        );
      ctx.status = 200;
      ctx.type = 'application/x-amz-json-1.0';
      ctx.body = JSON.stringify(answer);
    } catch (error) {
      if (!(error instanceof CloudWatchError)) throw error;
      const known = ERRORS[error.code];
      ctx.status = error.status;
      ctx.type = 'application/x-amz-json-1.0';
      ctx.set(
        'x-amzn-query-error',
        `${error.code};${known?.fault ?? (error.status >= 500 ? 'Receiver' : 'Sender')}`,
      );
      ctx.body = JSON.stringify({
        __type: `com.amazonaws.cloudwatch#${known?.type ?? error.code}`,
        message: error.message,
      });
    }
  }

  function control(input: z.input<typeof ControlSchema>): void {
    const parsed = ControlSchema.parse(input);
    if (parsed.clearFaults) faults = [];
    for (const fault of parsed.faults ?? []) faults.push({ ...fault, times: fault.times ?? 1 });
    if (parsed.clearSeries) scripts.clear();
    for (const entry of parsed.series ?? []) {
      const key = seriesKey(entry.namespace, entry.metricName, [
        { Name: 'InstanceId', Value: entry.instanceId },
      ]);
      const rules = scripts.get(key) ?? [];
      rules.push({ value: entry.value, from: entry.from ?? -Infinity, to: entry.to ?? Infinity });
      scripts.set(key, rules);
    }
  }

  function reset(): void {
    faults = [];
    stored.clear();
    scripts.clear();
  }

  const router = new Router();
  router.post('/', handle);
  router.get('/_state', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { now: new Date(now()).toISOString(), faults, series: stored.size };
  });
  router.post('/_control', koaBody({ jsonLimit: '1mb', urlencoded: false, text: false }), (ctx) => {
    const parsed = ControlSchema.safeParse(ctx.request.body);
    if (!parsed.success) {
      ctx.status = 400;
      ctx.body = { message: 'not a sandbox CloudWatch control request', issues: parsed.error.issues };
      return;
    }
    control(parsed.data);
    ctx.body = { faults, scripted: scripts.size };
  });
  router.post('/_reset', (ctx) => {
    reset();
    ctx.status = 204;
  });

  return { router, control, reset };
}
