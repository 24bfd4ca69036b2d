import {
  CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import type { IdlePeriod } from '../domain/idle.ts';
import { awsClientConfig, type AwsClientOptions } from './awsClientConfig.ts';

/**
 * CloudWatch through the real `@aws-sdk/client-cloudwatch` (AWS JSON 1.0), against AWS or the
 * sandbox: only the endpoint and keys differ. The usage page's CPU and GPU utilisation of
 * customers' machines, many machines per GetMetricData call.
 *
 * GPU: CloudWatch has no GPU metric for Windows instances (the agent's `nvidia_smi_*` metrics
 * are Linux-only). Our Windows image runs a scheduled task (infra/image/scripts/gpu-metrics.ps1)
 * that reads `nvidia-smi` once a minute and calls PutMetricData with namespace
 * `LegendCloud/GPU`, metric `GPUUtilization`, dimension `InstanceId`, with the instance
 * profile's role; a machine without it simply has no GPU points.
 */

export const UTILISATION_METRICS = {
  cpu: { namespace: 'AWS/EC2', metricName: 'CPUUtilization' },
  gpu: { namespace: 'LegendCloud/GPU', metricName: 'GPUUtilization' },
} as const;
export type UtilisationMetric = keyof typeof UTILISATION_METRICS;
const METRIC_KINDS = Object.keys(UTILISATION_METRICS) as UtilisationMetric[];

/**
 * The idle auto-stop's series, by instance. CPU and NetworkOut are EC2's own. GPU is the
 * image's poller (above). Remote Desktop sessions are the CloudWatch agent's Windows counter
 * `Terminal Services\Active Sessions` (infra/image/cloudwatch-agent.json renames it); browser
 * (Amazon DCV) connections are counted by the same once-a-minute task as the GPU
 * (infra/image/scripts/gpu-metrics.ps1), 0 where DCV is not installed. Sessions take the
 * period's Maximum, so one connected minute makes the period busy.
 */
export const IDLE_METRICS = {
  cpu: { namespace: 'AWS/EC2', metricName: 'CPUUtilization', stat: 'Average' },
  gpu: { namespace: 'LegendCloud/GPU', metricName: 'GPUUtilization', stat: 'Average' },
  rdp: { namespace: 'LegendCloud/Windows', metricName: 'ActiveRdpSessions', stat: 'Maximum' },
  dcv: { namespace: 'LegendCloud/Windows', metricName: 'DcvConnections', stat: 'Maximum' },
  networkOutBytes: { namespace: 'AWS/EC2', metricName: 'NetworkOut', stat: 'Sum' },
} as const;
type IdleSeriesKind = keyof typeof IDLE_METRICS;
const IDLE_KINDS = Object.keys(IDLE_METRICS) as IdleSeriesKind[];

/** GetMetricData takes at most 500 queries per call (CloudWatch quota). */
export const MAX_QUERIES_PER_CALL = 500;

export type UtilisationSample = {
  instanceId: string;
  metric: UtilisationMetric;
  /** Start of the period the value averages. */
  at: Date;
  /** Percent, 0–100. */
  value: number;
};

export type UtilisationRequest = {
  instanceIds: readonly string[];
  start: Date;
  end: Date;
  periodSeconds: number;
  /** Points per page (CloudWatch's default is 100,800); tests make it small to exercise paging. */
  maxDatapoints?: number | undefined;
};

export type CloudWatch = {
  client: CloudWatchClient;
  /**
   * Average CPU and GPU utilisation of each instance per period, in as few calls as the
   * 500-query limit allows, every page followed. Instances with no points (stopped, or no GPU
   * poller) are simply absent. SDK errors are thrown as the SDK's typed exceptions.
   */
  utilisation(request: UtilisationRequest): Promise<UtilisationSample[]>;
  /**
   * The idle auto-stop's evidence per instance and period: CPU, GPU, sessions connected
   * (Remote Desktop + browser) and bytes sent. A field is undefined for a period where its
   * series has no point; a period with none of them is absent.
   */
  idleSeries(request: UtilisationRequest): Promise<Map<string, IdlePeriod[]>>;
  destroy(): void;
};

export function createCloudWatch(options: AwsClientOptions): CloudWatch {
  const client = new CloudWatchClient(awsClientConfig(options));

  /**
   * One GetMetricData query per instance and series kind, in as few calls as the 500-query
   * limit allows, every page followed; each result is handed over with what it is about.
   */
  async function queryMetrics<K extends string>(
    request: UtilisationRequest,
    kinds: readonly K[],
    metricOf: (kind: K) => { namespace: string; metricName: string; stat: string },
    onResult: (target: { instanceId: string; kind: K }, result: MetricDataResult) => void,
  ): Promise<void> {
    const ids = [...new Set(request.instanceIds)];
    const perCall = Math.floor(MAX_QUERIES_PER_CALL / kinds.length);
    for (let i = 0; i < ids.length; i += perCall) {
      const chunk = ids.slice(i, i + perCall);
      // Query ids must start with a lowercase letter; positions map answers back to instances.
      const byQueryId = new Map<string, { instanceId: string; kind: K }>();
      const queries: MetricDataQuery[] = [];
      chunk.forEach((instanceId, index) => {
        for (const kind of kinds) {
          const id = `${kind}_${index}`;
          const metric = metricOf(kind);
          byQueryId.set(id, { instanceId, kind });
          queries.push({
            Id: id,
            MetricStat: {
              Metric: {
                Namespace: metric.namespace,
                MetricName: metric.metricName,
                Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
              },
              Period: request.periodSeconds,
              Stat: metric.stat,
            },
            ReturnData: true,
          });
        }
      });
      let nextToken: string | undefined;
      do {
        const page = await client.send(
          new GetMetricDataCommand({
            MetricDataQueries: queries,
            StartTime: request.start,
            EndTime: request.end,
            ScanBy: 'TimestampAscending',
            NextToken: nextToken,
            ...(request.maxDatapoints ? { MaxDatapoints: request.maxDatapoints } : {}),
          }),
        );
        for (const result of page.MetricDataResults ?? []) {
          const target = result.Id ? byQueryId.get(result.Id) : undefined;
          if (target) onResult(target, result);
        }
        nextToken = page.NextToken || undefined;
      } while (nextToken);
    }
  }

  async function utilisation(request: UtilisationRequest): Promise<UtilisationSample[]> {
    const samples: UtilisationSample[] = [];
    await queryMetrics(
      request,
      METRIC_KINDS,
      (metric) => ({ ...UTILISATION_METRICS[metric], stat: 'Average' }),
      ({ instanceId, kind }, result) => samples.push(...toSamples(result, { instanceId, metric: kind })),
    );
    return samples;
  }

  async function idleSeries(request: UtilisationRequest): Promise<Map<string, IdlePeriod[]>> {
    // instance → period start → the period being filled
    const found = new Map<string, Map<number, IdlePeriod & { rdp?: number; dcv?: number }>>();
    await queryMetrics(
      request,
      IDLE_KINDS,
      (kind) => IDLE_METRICS[kind],
      (target, result) => {
        let periods = found.get(target.instanceId);
        if (!periods) found.set(target.instanceId, (periods = new Map()));
        const values = result.Values ?? [];
        (result.Timestamps ?? []).forEach((at, n) => {
          const value = values[n];
          if (value === undefined || !Number.isFinite(value) || !(at instanceof Date)) return;
          const key = at.getTime();
          let period = periods.get(key);
          if (!period) periods.set(key, (period = { at: key }));
          period[target.kind] = value;
        });
      },
    );
    const answer = new Map<string, IdlePeriod[]>();
    for (const [instanceId, periods] of found) {
      answer.set(
        instanceId,
        [...periods.values()]
          .sort((a, b) => a.at - b.at)
          .map(({ at, cpu, gpu, networkOutBytes, rdp, dcv }) => ({
            at,
            cpu,
            gpu,
            networkOutBytes,
            // Both session counters must have answered: one missing is missing evidence.
            sessions: rdp === undefined || dcv === undefined ? undefined : rdp + dcv,
          })),
      );
    }
    return answer;
  }

  return { client, utilisation, idleSeries, destroy: () => client.destroy() };
}

function toSamples(
  result: MetricDataResult,
  target: { instanceId: string; metric: UtilisationMetric },
): UtilisationSample[] {
  const timestamps = result.Timestamps ?? [];
  const values = result.Values ?? [];
  const samples: UtilisationSample[] = [];
  timestamps.forEach((at, i) => {
    const value = values[i];
    if (value === undefined || !Number.isFinite(value) || !(at instanceof Date)) return;
    samples.push({ ...target, at, value: Math.min(100, Math.max(0, value)) });
  });
  return samples;
}
