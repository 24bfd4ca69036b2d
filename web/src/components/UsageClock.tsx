import { useEffect, useState } from 'react';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import { formatHms, liveUsageSeconds, planSeconds, remainingSeconds } from '../../../core/domain/usage.ts';

/**
 * Time used and remaining, ticking every second while the machine runs (spec §4): the stored
 * usage plus the seconds since the last state change. Never past the plan's hours: the machine
 * is stopped there.
 */
export function useUsageClock(record: {
  vmUsageSeconds: number;
  isRunning: boolean;
  vmLastStateChange: string | null;
  selectedDuration: number | null;
}): { used: string; remaining: string | null } {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!record.isRunning) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), TIMERS_MS.usageTick);
    return () => window.clearInterval(timer);
  }, [record.isRunning, record.vmLastStateChange]);

  const live = liveUsageSeconds(
    {
      usageSeconds: record.vmUsageSeconds,
      isRunning: record.isRunning,
      lastStateChange: record.vmLastStateChange,
    },
    now,
  );
  const hours = record.selectedDuration;
  const used = hours === null ? live : Math.min(live, planSeconds(hours));
  return {
    used: formatHms(used),
    remaining: hours === null ? null : formatHms(remainingSeconds(hours, used)),
  };
}

export function UsageClock(props: Parameters<typeof useUsageClock>[0]) {
  const { used, remaining } = useUsageClock(props);
  return (
    <>
      <div className="vm-fact">
        <dt>Time used</dt>
        <dd className="vm-clock" data-field="time-used">
          {used}
        </dd>
      </div>
      {remaining !== null && (
        <div className="vm-fact">
          <dt>Remaining time</dt>
          <dd className="vm-clock" data-field="time-remaining">
            {remaining}
          </dd>
        </div>
      )}
    </>
  );
}
