import { useState } from 'react';
import { errorMessage } from '../api/fetcher.ts';
import { keepItRunning, setIdleMinutes, useIdle } from '../api/idle.ts';
import { formatIndiaClock, IDLE_MESSAGES, isIdleStopMinutes } from '../../../core/domain/idle.ts';
import { formatLongDate } from '../../../core/domain/time.ts';
import { formatHoursMinutes } from '../../../core/domain/usageBuckets.ts';

/**
 * The dashboard's ten-minute notice with "Keep it running", shown while the worker has warned
 * that the machine will stop for being idle.
 */
export function IdleNotice({ enabled }: { enabled: boolean }) {
  const { data } = useIdle(enabled);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!data?.warning) return null;

  async function keep() {
    setBusy(true);
    setProblem(null);
    try {
      await keepItRunning();
    } catch (error) {
      setProblem(errorMessage(error, IDLE_MESSAGES.saveFailed));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="notice warning dashboard-notice idle-notice" role="alert">
      <p>{IDLE_MESSAGES.warning(formatIndiaClock(data.warning.stopAt))}</p>
      <p>
        <button type="button" className="button primary" onClick={() => void keep()} disabled={busy}>
          {IDLE_MESSAGES.keepRunning}
        </button>
      </p>
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

/** The dashboard's idle auto-stop setting: 15, 30 or 60 minutes, or off. */
export function IdleSettingCard({ enabled }: { enabled: boolean }) {
  const { data } = useIdle(enabled);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  if (!data?.machine) return null;

  async function choose(value: string) {
    const minutes = value === 'off' ? null : Number(value);
    if (minutes !== null && !isIdleStopMinutes(minutes)) return;
    setSaving(true);
    setProblem(null);
    setSaved(null);
    try {
      await setIdleMinutes(minutes);
      setSaved(IDLE_MESSAGES.settingSaved(minutes));
    } catch (error) {
      setProblem(errorMessage(error, IDLE_MESSAGES.saveFailed));
    } finally {
      setSaving(false);
    }
  }

  return (
    <section className="card idle-card" aria-labelledby="idle-card-title">
      <h2 id="idle-card-title">{IDLE_MESSAGES.title}</h2>
      <p className="idle-explain">{IDLE_MESSAGES.explain}</p>
      <label className="idle-choice">
        <span>Stop after</span>
        <select
          value={data.minutes === null ? 'off' : String(data.minutes)}
          onChange={(event) => void choose(event.target.value)}
          disabled={saving}
          aria-label="Stop after idle minutes"
        >
          {data.choices.map((m) => (
            <option key={m} value={String(m)}>
              {IDLE_MESSAGES.minutes(m)}
            </option>
          ))}
          <option value="off">{IDLE_MESSAGES.off}</option>
        </select>
      </label>
      {/* The setting saves as it is picked: say so, where a screen reader hears it too. */}
      <p className="idle-saved" role="status" aria-live="polite">
        {saving ? 'Saving…' : saved}
      </p>
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

/** The usage page's card: hours auto-stop saved this plan, and when the hours run out at this pace. */
export function IdleSavings() {
  const { data } = useIdle();
  if (!data?.machine) return null;
  const saved = formatHoursMinutes(data.saved.seconds / 3600);
  const projection = data.projection;
  return (
    <section className="card idle-savings" aria-labelledby="idle-savings-title">
      <h2 id="idle-savings-title" className="usage-card-title">
        {IDLE_MESSAGES.saved}
      </h2>
      <p className="usage-card-value" data-testid="idle-saved">
        {saved}
      </p>
      <p className="usage-card-detail">
        {data.saved.stops === 1 ? '1 automatic stop' : `${data.saved.stops} automatic stops`} this plan,
        counted until you next started your PC.
      </p>
      <p className="usage-card-detail" data-testid="idle-projection">
        {projection.kind === 'runs-out'
          ? `At ${formatHoursMinutes(projection.hoursPerDay)} a day, your hours run out on ${formatLongDate(projection.at)}.`
          : projection.kind === 'lasts'
            ? `At ${formatHoursMinutes(projection.hoursPerDay)} a day, your hours last until your plan ends.`
            : 'No use yet to project from.'}
      </p>
    </section>
  );
}
