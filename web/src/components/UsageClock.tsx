import { useEffect, useState } from 'react';
import { useSessionEnded } from '../api/sessionEnded.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import { formatHms, liveUsageSeconds, planSeconds, remainingSeconds } from '../../../core/domain/usage.ts';
import { remainingOfPlan, REMAINING_LABELS, type PlanEndRecord } from '../../../core/domain/planEnd.ts';

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
export function useLiveUsage(
  record: ClockRecord,
  /** Tick even while stopped: the time to the plan's end runs whether the machine does or not. */
  alwaysTick = false,
): { usedSeconds: number; now: number } {
  const [now, setNow] = useState(() => Date.now());
  // Once the session has ended the record is only what was last known: the clock stops there.
  const ended = useSessionEnded();
  const ticking = (record.isRunning || alwaysTick) && !ended;
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), TIMERS_MS.usageTick);
    return () => window.clearInterval(timer);
  }, [ticking, record.vmLastStateChange]);
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

type UsageClockProps = ClockRecord & { selectedDuration: number | null; planEnd: PlanEndRecord | null };

function useUsageClock(record: UsageClockProps): {
  used: string;
  remaining: { text: string; label: string | null } | null;
} {
  // In the last days the time to the end can be the lesser one, and it runs while stopped too.
  const { usedSeconds: live, now } = useLiveUsage(record, record.planEnd?.phase === 'ending');
  const hours = record.selectedDuration;
  const used = hours === null ? live : Math.min(live, planSeconds(hours));
  if (hours === null) return { used: formatHms(used), remaining: null };
  if (!record.planEnd)
    return {
      used: formatHms(used),
      remaining: { text: formatHms(remainingSeconds(hours, used)), label: null },
    };
  const left = remainingOfPlan({
    hours,
    usedSeconds: used,
    endsAt: record.planEnd.endsAt,
    ended: record.planEnd.phase === 'ended',
    now,
  });
  return {
    used: formatHms(used),
    remaining: left.ended
      ? { text: REMAINING_LABELS.ended, label: null }
      : { text: formatHms(left.seconds), label: REMAINING_LABELS[left.limitedBy] },
  };
}

export function UsageClock(props: UsageClockProps) {
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
          <dd className="vm-clock">
            <span data-field="time-remaining">{remaining.text}</span>
            {remaining.label && (
              <span className="vm-clock-label" data-field="time-remaining-label">
                {remaining.label}
              </span>
            )}
          </dd>
        </div>
      )}
    </>
  );
}
