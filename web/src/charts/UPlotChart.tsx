import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
// Only chart modules import uPlot (and its stylesheet): it ships with the lazily loaded usage
// page, never with the landing page.
import 'uplot/dist/uPlot.min.css';

/** uPlot options without the size, which the wrapper owns. */
export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

/**
 * One uPlot chart, as pg-boss's dashboard wraps it: the plot is created in an effect keyed on
 * the chart's structure (`structureKey`: series, axes, scales; not the data), data flows in
 * with `setData`, the width follows the container through a ResizeObserver (so it reads at
 * 360 px), and the plot is destroyed on cleanup. Decorative for assistive technology: each
 * chart's caller gives a text alternative beside it.
 */
export function UPlotChart({
  options,
  data,
  height,
  structureKey,
}: {
  options: ChartOptions;
  data: uPlot.AlignedData;
  height: number;
  structureKey: string;
}) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // The latest options and data, read when the plot is (re)created without re-keying on them.
  const latest = useRef({ options, data });
  latest.current = { options, data };

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const width = Math.max(200, Math.floor(element.clientWidth));
    const created = new uPlot({ ...latest.current.options, width, height }, latest.current.data, element);
    plot.current = created;
    const observer = new ResizeObserver((entries) => {
      const next = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (next > 0 && next !== created.width) created.setSize({ width: next, height });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      created.destroy();
      plot.current = null;
    };
  }, [structureKey, height]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return <div ref={container} className="chart-canvas" aria-hidden="true" />;
}

/** The design tokens (web/src/styles.css) a chart draws with, read once per plot. */
export function chartTheme() {
  const styles = getComputedStyle(document.documentElement);
  const token = (name: string, fallback: string) => styles.getPropertyValue(name).trim() || fallback;
  const muted = token('--text-muted', '#aab3d9');
  return {
    text: muted,
    grid: 'rgb(170 179 217 / 14%)',
    line: token('--accent-2', '#22d3ee'),
    second: token('--accent-strong', '#a48bff'),
    third: token('--warning', '#fbbf24'),
    bar: token('--accent', '#8b6cff'),
    font: '12px Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  };
}

/** An axis in the dark theme: muted labels, faint grid and ticks. */
export function themedAxis(theme: ReturnType<typeof chartTheme>, axis: uPlot.Axis = {}): uPlot.Axis {
  return {
    stroke: theme.text,
    font: theme.font,
    grid: { stroke: theme.grid, width: 1 },
    ticks: { stroke: theme.grid, width: 1, size: 4 },
    ...axis,
  };
}

export { uPlot };
