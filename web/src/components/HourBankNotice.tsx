import { useLiveUsage } from './UsageClock.tsx';
import { formatHms, hourBankNotice, stopsSoonMessage, USAGE_MESSAGES } from '../../../core/domain/usage.ts';
import type { DashboardRecord } from '../../../core/domain/vm.ts';

/**
 * The hour bank on the dashboard: 80% used, all used, and a countdown in the last minutes
 * before a running machine is stopped for its hours. Computed from the record the poll already
 * carries (usage at the last state change, ticking locally while running), so it costs the
 * server nothing.
 */
export function HourBankNotice({ record }: { record: DashboardRecord }) {
  const { usedSeconds, now } = useLiveUsage(record);
  const notice = hourBankNotice({
    hours: record.selectedDuration,
    usedSeconds,
    running: record.isRunning,
    planActive: record.planActive,
    now,
  });
  if (!notice) return null;

  if (notice.kind === 'stops-soon') {
    return (
      <div className="notice warning dashboard-notice hour-bank" role="alert" data-notice="hours-stop-soon">
        <p>
          {notice.secondsLeft > 0
            ? stopsSoonMessage(notice.runsOutAt, notice.secondsLeft)
            : USAGE_MESSAGES.stopsNow}
        </p>
      </div>
    );
  }
  if (notice.kind === 'used-all') {
    // The server's own notice says it once the worker has counted the last hour; only say it here until then.
    if (record.notice === USAGE_MESSAGES.outOfHours) return null;
    return (
      <div className="notice warning dashboard-notice hour-bank" role="status" data-notice="hours-100">
        <p>{USAGE_MESSAGES.outOfHours}</p>
      </div>
    );
  }
  return (
    <div className="notice warning dashboard-notice hour-bank" role="status" data-notice="hours-80">
      <p>
        {USAGE_MESSAGES.used80} {formatHms(notice.secondsLeft)} left. {USAGE_MESSAGES.used80Hint}
      </p>
    </div>
  );
}
