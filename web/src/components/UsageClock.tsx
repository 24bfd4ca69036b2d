import { useEffect, useState } from 'react';
import { useSessionEnded } from '../api/sessionEnded.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import { formatHms, liveUsageSeconds, planSeconds, remainingSeconds } from '../../../core/domain/usage.ts';

/**
 * Time used and remaining, ticking every second while the machine runs (spec §4): the stored
 * usage plus the seconds since the last state change. Never past the plan's hours: the machine
 * is stopped there.
 */
type ClockRecord = { vmUsageSeconds: number; isRunning: boolean; vmLastStateChange: string | null };

/**
 * The usage seconds now and the moment they are for: the stored usage plus the time since the
 * last state change while the machine runs, ticking every second then.
 */
export function useLiveUsage(record: ClockRecord): { usedSeconds: number; now: number } {
  const [now, setNow] = useState(() => Date.now());
  // Once the session has ended the record is only what was last known: the clock stops there.
  const ended = useSessionEnded();
  useEffect(() => {
    if (!record.isRunning || ended) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), TIMERS_MS.usageTick);
    return () => window.clearInterval(timer);
  }, [record.isRunning, record.vmLastStateChange, ended]);
  const usedSeconds = liveUsageSeconds(
    {
      usageSeconds: record.vmUsageSeconds,
      isRunning: record.isRunning,
      lastStateChange: record.vmLastStateChange,
    },
    now,
  );
  return { usedSeconds, now };
}

function useUsageClock(record: ClockRecord & { selectedDuration: number | null }): {
  used: string;
  remaining: string | null;
} {
  const { usedSeconds: live } = useLiveUsage(record);
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
