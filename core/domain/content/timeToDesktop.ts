/**
 * The site's time-to-desktop figure comes from real provisions only: the median, from payment
 * (the machine requested) to ready, of the most recent paid machines, shown once there are
 * enough of them to mean something. Before that the site says only what is safe to say.
 */

/** Provisions the median is taken over (the most recent ones). */
export const RECENT_PROVISIONS = 50;
/** Below this many recorded provisions no figure is shown. */
export const MIN_PROVISIONS_FOR_FIGURE = 20;

/** What the database measured: null when nothing is recorded yet. */
export type ProvisionTimes = { sampleSize: number; medianSeconds: number } | null;

export type TimeToDesktopStat = {
  value: string;
  label: string;
  /** True when the figure is a measurement of real provisions. */
  measured: boolean;
};

/** The static wording while too few provisions are recorded: true of warm and cold launches. */
export const UNMEASURED_STAT: TimeToDesktopStat = {
  value: 'A few',
  label: 'minutes from payment to your desktop',
  measured: false,
};

export function timeToDesktopStat(times: ProvisionTimes | undefined): TimeToDesktopStat {
  if (!times || times.sampleSize < MIN_PROVISIONS_FOR_FIGURE || !Number.isFinite(times.medianSeconds)) {
    return UNMEASURED_STAT;
  }
  const of = `median of our last ${times.sampleSize} desktops`;
  if (times.medianSeconds < 120) {
    return {
      value: String(Math.max(1, Math.round(times.medianSeconds))),
      label: `seconds to your desktop (${of})`,
      measured: true,
    };
  }
  return {
    value: String(Math.round(times.medianSeconds / 60)),
    label: `minutes to your desktop (${of})`,
    measured: true,
  };
}
