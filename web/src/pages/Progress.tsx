import { IdleSavings } from '../components/IdleAutoStop.tsx';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { errorMessage } from '../api/fetcher.ts';
import { useSessionEnded } from '../api/sessionEnded.ts';
import { useUsage, type Usage } from '../api/usage.ts';
import { appendLiveSample, latestValue, sessionSeconds, type LiveSample } from '../charts/liveSamples.ts';
import { DailyUsageChart, HourlyUsageChart, LiveUsageChart } from '../charts/UsageCharts.tsx';
import { Page } from '../components/Layout.tsx';
import { RequireUser } from '../components/RequireUser.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { TIMERS_MS } from '../../../core/domain/constants.ts';
import { PROGRESS_MESSAGES, progressCards, type ProgressCard } from '../../../core/domain/progress.ts';
import { formatHms, liveUsageSeconds } from '../../../core/domain/usage.ts';
import { indiaHour } from '../../../core/domain/usageBuckets.ts';
import { VM_STATUS_LABELS, type VmDisplayState } from '../../../core/domain/vm.ts';

/**
 * Spec §2 Progress page: "Loading your usage…" until the data arrives; a stopped machine
 * says so; otherwise the four cards and three charts. §4: while the machine runs the data is
 * polled and a live sample added every second (the last 60 kept); polling stops when it is not
 * running. §8: a failed fetch shows the server's error, else the error's message, else the
 * product's fallback.
 */
export default function Progress() {
  usePageTitle(PROGRESS_MESSAGES.title);
  return <RequireUser>{(user) => <ProgressView email={user.email} />}</RequireUser>;
}

const LEAD = 'How you use your cloud PC’s hours: live, over the last 7 days and today (India time).';

function ProgressView({ email }: { email: string }) {
  const { data, error } = useUsage(email);
  const running = data?.isRunning === true;
  const samples = useLiveSamples(data, running);

  const alert = error ? (
    <p role="alert" className="notice error usage-alert">
      {errorMessage(error, PROGRESS_MESSAGES.fetchFailed)}
    </p>
  ) : null;

  if (!data) {
    return (
      <Page title="Your usage" lead={LEAD}>
        {alert ?? <p className="loading">{PROGRESS_MESSAGES.loading}</p>}
      </Page>
    );
  }

  const state = data.vmLastState;
  let body;
  if (!data.selectedPlan) {
    body = (
      <section className="card usage-empty">
        <p>{PROGRESS_MESSAGES.noPlan}</p>
        <Link href="/select-vm" className="button primary">
          See plans
        </Link>
      </section>
    );
  } else if (state === 'stopped') {
    body = (
      <section className="card usage-empty" aria-labelledby="usage-stopped-title">
        <h2 id="usage-stopped-title">{PROGRESS_MESSAGES.stoppedTitle}</h2>
        <p>{PROGRESS_MESSAGES.stoppedBody}</p>
        <Link href="/dashboard" className="button primary">
          Go to dashboard
        </Link>
      </section>
    );
  } else {
    body = <UsageView usage={data} state={state} samples={samples} />;
  }

  return (
    <Page title="Your usage" lead={LEAD}>
      {alert}
      {body}
      <IdleSavings />
    </Page>
  );
}

/**
 * One sample a second while the machine runs: the session's time and the newest CPU and GPU
 * figures.
 * The list starts afresh with each run and keeps the newest 60.
 */
function useLiveSamples(data: Usage | undefined, running: boolean): LiveSample[] {
  const [samples, setSamples] = useState<LiveSample[]>([]);
  const latest = useRef(data);
  latest.current = data;
  // Once the session has ended the data is only what was last known: no more live samples.
  const ended = useSessionEnded();

  useEffect(() => {
    if (!running || ended) return;
    setSamples([]);
    const tick = () => {
      const usage = latest.current;
      if (!usage?.isRunning) return;
      const now = Date.now();
      setSamples((previous) =>
        appendLiveSample(previous, {
          t: now / 1000,
          sessionSeconds: sessionSeconds(usage.vmLastStateChange, now),
          cpu: latestValue(usage.cpu),
          gpu: latestValue(usage.gpu),
        }),
      );
    };
    tick();
    const timer = window.setInterval(tick, TIMERS_MS.usagePoll);
    return () => window.clearInterval(timer);
  }, [running, ended]);

  return samples;
}

function UsageView({
  usage,
  state,
  samples,
}: {
  usage: Usage;
  state: VmDisplayState;
  samples: LiveSample[];
}) {
  // Re-rendered every second by the live samples while running, so the clocks tick.
  const now = Date.now();
  const used = liveUsageSeconds(
    {
      usageSeconds: usage.vmUsageSeconds,
      isRunning: usage.isRunning,
      lastStateChange: usage.vmLastStateChange,
    },
    now,
  );
  const cards = progressCards({
    durationHours: usage.selectedDuration,
    usedSeconds: used,
    purchasedAt: usage.purchaseDate,
    expiresAt: usage.expiryDate,
    daily: usage.daily,
    hourly: usage.hourly,
    now,
  });
  const label = VM_STATUS_LABELS[state];

  return (
    <>
      <p className="usage-status">
        <span className={`usage-state is-${state}`}>{label}</span>
        {usage.isRunning && (
          <span>
            This session <strong>{formatHms(sessionSeconds(usage.vmLastStateChange, now))}</strong>
          </span>
        )}
        <span>
          Used <strong>{formatHms(used)}</strong>
          {usage.selectedDuration ? ` of ${usage.selectedDuration} h` : ''}
        </span>
      </p>

      <section aria-label="Insights">
        <ul className="usage-cards">
          {[cards.forecast, cards.suggestion, cards.peak].map((card) => (
            <UsageCard key={card.title} card={card} />
          ))}
        </ul>
      </section>

      <section aria-label="Charts" className="usage-charts">
        <LiveUsageChart samples={samples} running={usage.isRunning} />
        <DailyUsageChart daily={usage.daily} />
        <HourlyUsageChart hourly={usage.hourly} currentHour={indiaHour(usage.now)} />
      </section>
    </>
  );
}

function UsageCard({ card }: { card: ProgressCard }) {
  return (
    <li className="card usage-card">
      <h2 className="usage-card-title">{card.title}</h2>
      <p className="usage-card-value">{card.value}</p>
      <p className="usage-card-detail">{card.detail}</p>
    </li>
  );
}
