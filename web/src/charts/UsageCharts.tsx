import { useId, useMemo, type ReactNode } from 'react';
import {
  dayMonthLabel,
  formatHoursMinutes,
  shortDayLabel,
  type DailyUsage,
  type HourlyUsageEntry,
} from '../../../core/domain/usageBuckets.ts';
import { formatHms } from '../../../core/domain/usage.ts';
import { hourRangeLabel } from '../../../core/domain/insights.ts';
import type { LiveSample } from './liveSamples.ts';
import { LIVE_CHART_POINTS } from '../../../core/domain/constants.ts';
import { chartTheme, themedAxis, UPlotChart, uPlot, type ChartOptions } from './UPlotChart.tsx';

/**
 * The usage page's three charts (spec §2): the live session line, the last 7 days as bars and
 * today's hours as a line. Each is a figure whose caption says the figures in words and whose
 * visually hidden table lists them, for people who cannot see the canvas.
 */

const HEIGHT = 220;

function ChartFigure({
  title,
  summary,
  points,
  children,
  table,
}: {
  title: string;
  summary: string;
  points?: number;
  children: ReactNode;
  table: ReactNode;
}) {
  const id = useId();
  return (
    <figure className="card usage-chart" aria-labelledby={`${id}-title`} data-points={points}>
      <figcaption>
        <h2 id={`${id}-title`} className="usage-chart-title">
          {title}
        </h2>
        <p className="usage-chart-summary">{summary}</p>
      </figcaption>
      {children}
      {table}
    </figure>
  );
}

/** Axis steps for a duration in seconds: whole seconds, minutes, then hours. */
const SECOND_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600];

/** A session-time tick: "45 s", "12 min", "1 h 30 min" (the steps keep it to one unit or two). */
function durationLabel(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 === 0 ? `${s / 60} min` : `${Math.floor(s / 60)}m ${s % 60}s`;
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

const clockTime = (t: number) =>
  new Date(t * 1000).toLocaleTimeString('en-IN', {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  });

/** Session time of the running machine, sampled every second (the last 60), with CPU and GPU when known. */
export function LiveUsageChart({ samples, running }: { samples: readonly LiveSample[]; running: boolean }) {
  const showCpu = samples.some((s) => s.cpu !== null);
  const showGpu = samples.some((s) => s.gpu !== null);
  const latest = samples[samples.length - 1];
  const data = useMemo<uPlot.AlignedData>(() => {
    const columns: uPlot.AlignedData = [samples.map((s) => s.t), samples.map((s) => s.sessionSeconds)];
    if (showCpu) columns.push(samples.map((s) => s.cpu));
    if (showGpu) columns.push(samples.map((s) => s.gpu));
    return columns;
  }, [samples, showCpu, showGpu]);

  const options = useMemo<ChartOptions>(() => {
    const theme = chartTheme();
    const series: uPlot.Series[] = [
      {},
      {
        label: 'Session',
        scale: 'session',
        stroke: theme.line,
        width: 2,
        points: { show: false },
        value: (_u, v) => (v == null ? '—' : formatHms(v)),
      },
    ];
    const axes: uPlot.Axis[] = [
      // Whole-second steps at least: the labels print seconds, finer ticks would repeat them.
      themedAxis(theme, {
        space: 70,
        incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300],
        values: (_u, splits) => splits.map((t) => clockTime(t)),
      }),
      themedAxis(theme, {
        scale: 'session',
        size: 64,
        incrs: SECOND_STEPS,
        values: (_u, splits) => splits.map(durationLabel),
      }),
    ];
    const percent = (label: string, stroke: string, dash: number[]): uPlot.Series => ({
      label,
      scale: 'pct',
      stroke,
      width: 1.5,
      dash,
      points: { show: false },
      value: (_u, v) => (v == null ? '—' : `${v.toFixed(1)}%`),
    });
    if (showCpu) series.push(percent('CPU', theme.second, [6, 4]));
    if (showGpu) series.push(percent('GPU', theme.third, [2, 3]));
    if (showCpu || showGpu) {
      axes.push(
        themedAxis(theme, {
          scale: 'pct',
          side: 1,
          size: 44,
          grid: { show: false },
          values: (_u, splits) => splits.map((v) => `${v}%`),
        }),
      );
    }
    return {
      scales: { x: { time: true }, session: { auto: true }, pct: { auto: false, range: [0, 100] } },
      series,
      axes,
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
    };
  }, [showCpu, showGpu]);

  const load = [
    latest?.cpu != null ? `CPU ${latest.cpu.toFixed(1)}%` : '',
    latest?.gpu != null ? `GPU ${latest.gpu.toFixed(1)}%` : '',
  ]
    .filter(Boolean)
    .map((part) => ` · ${part}`)
    .join('');
  // Say what the line covers: the samples this page took (at most the last minute), not the
  // whole session, whose length and start are given beside it.
  const covered = latest && samples[0] ? Math.round(latest.t - samples[0].t) + 1 : 0;
  const summary =
    running && latest
      ? `The last ${covered} s, sampled every second while this page is open. This session so far: ${formatHms(latest.sessionSeconds)} (started ${clockTime(latest.t - latest.sessionSeconds)})${load}.`
      : 'Live usage appears here while your VM is running.';

  return (
    <ChartFigure
      title={`Live: the last ${LIVE_CHART_POINTS} seconds`}
      summary={summary}
      points={samples.length}
      table={
        <div className="visually-hidden">
          <table>
            <caption>Live session samples, one a second, newest last</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Session</th>
                <th scope="col">CPU</th>
                <th scope="col">GPU</th>
              </tr>
            </thead>
            <tbody>
              {samples.map((s) => (
                <tr key={s.t}>
                  <td>{clockTime(s.t)}</td>
                  <td>{formatHms(s.sessionSeconds)}</td>
                  <td>{s.cpu === null ? '—' : `${s.cpu.toFixed(1)}%`}</td>
                  <td>{s.gpu === null ? '—' : `${s.gpu.toFixed(1)}%`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      }
    >
      {samples.length > 0 && (
        <UPlotChart
          options={options}
          data={data}
          height={HEIGHT}
          structureKey={`live:${showCpu}:${showGpu}`}
        />
      )}
    </ChartFigure>
  );
}

/** Hours used on each of the last 7 India days, as bars. */
export function DailyUsageChart({ daily }: { daily: readonly DailyUsage[] }) {
  const days = daily.map((d) => d.day).join(',');
  const data = useMemo<uPlot.AlignedData>(() => [daily.map((_, i) => i), daily.map((d) => d.usage)], [daily]);
  const options = useMemo<ChartOptions>(() => {
    const theme = chartTheme();
    // Weekday over date ("Mon" / "16"): seven of them fit side by side at 360 px.
    const labels = days.split(',').map((day) => shortDayLabel(day).replace(' ', '\n'));
    const bars = uPlot.paths.bars?.({ size: [0.6, 56], align: 0 });
    return {
      scales: {
        x: { time: false, range: [-0.5, labels.length - 0.5] },
        y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.2 * 2) / 2)] },
      },
      series: [
        {},
        {
          label: 'Hours',
          stroke: theme.bar,
          fill: 'rgb(139 108 255 / 60%)',
          width: 1,
          points: { show: false },
          ...(bars ? { paths: bars } : {}),
        },
      ],
      axes: [
        themedAxis(theme, {
          grid: { show: false },
          space: 28,
          size: 44,
          splits: () => labels.map((_, i) => i),
          values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
        }),
        themedAxis(theme, { size: 44, values: (_u, splits) => splits.map((v) => `${+v.toFixed(1)} h`) }),
      ],
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
    };
  }, [days]);

  const total = daily.reduce((sum, d) => sum + d.usage, 0);
  const busiest = daily.reduce<DailyUsage | null>(
    (best, d) => (d.usage > (best?.usage ?? 0) ? d : best),
    null,
  );
  const summary =
    total > 0
      ? `${formatHoursMinutes(total)} over 7 days; most on ${busiest ? dayMonthLabel(busiest.day) : ''} (${formatHoursMinutes(busiest?.usage ?? 0)}).`
      : 'No use in the last 7 days.';

  return (
    <ChartFigure
      title="Last 7 days"
      summary={summary}
      table={
        <div className="visually-hidden">
          <table>
            <caption>Hours used per day, India time, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Used</th>
              </tr>
            </thead>
            <tbody>
              {daily.map((d) => (
                <tr key={d.day}>
                  <td>{dayMonthLabel(d.day)}</td>
                  <td>{formatHoursMinutes(d.usage)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      }
    >
      <UPlotChart options={options} data={data} height={HEIGHT} structureKey={`daily:${days}`} />
    </ChartFigure>
  );
}

/** Minutes used in each hour of today (India time), as a line; hours still ahead are left blank. */
export function HourlyUsageChart({
  hourly,
  currentHour,
}: {
  hourly: readonly HourlyUsageEntry[];
  currentHour: number;
}) {
  const data = useMemo<uPlot.AlignedData>(
    () => [
      hourly.map((h) => h.hour),
      hourly.map((h) => (h.hour > currentHour ? null : Math.round(h.usage * 60 * 10) / 10)),
    ],
    [hourly, currentHour],
  );
  const options = useMemo<ChartOptions>(() => {
    const theme = chartTheme();
    return {
      scales: { x: { time: false, range: [0, 23] }, y: { auto: false, range: [0, 60] } },
      series: [
        {},
        {
          label: 'Minutes',
          stroke: theme.line,
          fill: 'rgb(34 211 238 / 14%)',
          width: 2,
          points: { show: true, size: 4 },
          value: (_u, v) => (v == null ? '—' : `${v} min`),
        },
      ],
      axes: [
        themedAxis(theme, {
          incrs: [1, 2, 3, 4, 6, 12],
          space: 44,
          values: (_u, splits) => splits.map((h) => `${String(h).padStart(2, '0')}:00`),
        }),
        themedAxis(theme, {
          size: 52,
          incrs: [15, 30],
          values: (_u, splits) => splits.map((v) => `${v} min`),
        }),
      ],
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
    };
  }, []);

  const used = hourly.filter((h) => h.usage > 0);
  const total = used.reduce((sum, h) => sum + h.usage, 0);
  const summary =
    total > 0
      ? `${formatHoursMinutes(total)} today so far, in ${used.length} hour${used.length === 1 ? '' : 's'} (India time).`
      : 'No use yet today.';

  return (
    <ChartFigure
      title="Today by hour"
      summary={summary}
      table={
        <div className="visually-hidden">
          <table>
            <caption>Minutes used in each hour of today, India time</caption>
            <thead>
              <tr>
                <th scope="col">Hour</th>
                <th scope="col">Used</th>
              </tr>
            </thead>
            <tbody>
              {used.map((h) => (
                <tr key={h.hour}>
                  <td>{hourRangeLabel(h.hour)}</td>
                  <td>{formatHoursMinutes(h.usage)}</td>
                </tr>
              ))}
              {used.length === 0 && (
                <tr>
                  <td colSpan={2}>No use yet today</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      }
    >
      <UPlotChart options={options} data={data} height={HEIGHT} structureKey="hourly" />
    </ChartFigure>
  );
}
