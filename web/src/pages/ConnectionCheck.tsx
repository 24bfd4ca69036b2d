import { useEffect, useRef, useState, type RefObject } from 'react';
import { Link } from 'wouter';
import { useSiteQuery } from '../api/site.ts';
import { CheckFailed, runConnectionCheck, type CheckProgress, type CheckResult } from '../connectionCheck.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import {
  adviceFor,
  CONNECTION_CHECK_MESSAGES as M,
  DOWNLOAD_BUDGET_BYTES,
  formatMbps,
  formatMs,
  greatNeeds,
  regionLabel,
  RTT_REQUESTS,
  streamQualityFor,
  USE_LABELS,
  verdicts,
  type Level,
  type Measured,
} from '../../../core/domain/connectionCheck.ts';
import { GAMING_SPEED_SENTENCE } from '../../../core/domain/gaming.ts';
import './ConnectionCheck.css';

type State =
  | { kind: 'idle' }
  // Asked for before the endpoint was known (the page's settings still loading): starts then.
  | { kind: 'starting' }
  | { kind: 'running'; progress: CheckProgress }
  | { kind: 'done'; result: CheckResult }
  | { kind: 'failed'; message: string };

const LEVEL_LABELS: Record<Level, string> = { great: 'Great', ok: 'Fine', poor: 'Falls short' };

/**
 * A public page that measures the visitor's way to the region our PCs run in (round trip,
 * jitter, download speed) and says what it means for gaming, video editing and work or study,
 * before anyone pays. The endpoint comes from the server (`GET /api/site`).
 */
export default function ConnectionCheck() {
  usePageTitle('Connection check');
  const site = useSiteQuery();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const running = useRef<AbortController | null>(null);
  const results = useRef<HTMLHeadingElement>(null);

  // Leaving the page stops a check in progress.
  useEffect(() => () => running.current?.abort(), []);

  const region = site.data?.connectionCheck.region;

  async function run() {
    const target = site.data?.connectionCheck.pingUrl;
    if (!target) {
      setState({ kind: 'starting' });
      return;
    }
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setState({ kind: 'running', progress: { phase: 'rtt', done: 0, total: RTT_REQUESTS } });
    try {
      const result = await runConnectionCheck(target, {
        signal: controller.signal,
        onProgress: (progress) => {
          if (!controller.signal.aborted) setState({ kind: 'running', progress });
        },
      });
      setState({ kind: 'done', result });
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof CheckFailed) {
        setState({
          kind: 'failed',
          message: error.answered === 0 ? M.unreachable : M.tooFewAnswers(error.answered),
        });
        return;
      }
      console.error('connection check failed', error);
      setState({ kind: 'failed', message: M.unreachable });
    }
  }

  useEffect(() => {
    if (state.kind === 'done') results.current?.focus();
  }, [state.kind]);

  // Started while the endpoint was not known yet: it is now.
  const pingUrl = site.data?.connectionCheck.pingUrl;
  useEffect(() => {
    if (state.kind === 'starting' && pingUrl) void run();
  }, [state.kind, pingUrl]);

  const busy = state.kind === 'running' || state.kind === 'starting';
  return (
    <div className="container page connection-check">
      <header className="section-head">
        <p className="section-eyebrow">Before you buy</p>
        <h1>Connection check</h1>
        <p className="lead">
          See how well your internet reaches our PCs: the round trip, the jitter and the download speed, and
          what they mean for gaming, video editing and work or study.
        </p>
      </header>

      <section className="card check-start" aria-labelledby="check-start-title">
        <h2 id="check-start-title">Run the check</h2>
        {/* Its place is kept while the region is asked for (the page is prerendered without it): the
            page does not move when it arrives. */}
        <p className="check-region">{region ? `To our PCs in ${regionLabel(region)}.` : ''}</p>
        <p className="muted">
          Use the device and the spot you will play or work from, and pause downloads and video calls first.
          It takes a few seconds (up to about 20 on a slow line) and downloads at most{' '}
          {Math.round(DOWNLOAD_BUDGET_BYTES / (1024 * 1024))} MB.
        </p>
        {site.error ? (
          <div className="check-problem">
            <p className="notice error" role="alert">
              {M.siteUnavailable}
            </p>
            <button type="button" className="button" onClick={site.retry}>
              Try again
            </button>
          </div>
        ) : (
          <button
            type="button"
            className="button primary large"
            onClick={run}
            disabled={busy}
            aria-describedby="check-progress"
          >
            {busy ? 'Checking…' : state.kind === 'idle' ? 'Start the check' : 'Run the check again'}
          </button>
        )}
        <p className="muted check-gaming-speeds">{GAMING_SPEED_SENTENCE}</p>
        <div id="check-progress" className="check-progress">
          {state.kind === 'running' && <Progress progress={state.progress} />}
        </div>
        {/* Screen readers hear each phase once, not every request counted. */}
        <p className="visually-hidden" role="status">
          {state.kind === 'starting'
            ? 'Starting the check…'
            : state.kind === 'running'
              ? state.progress.phase === 'rtt'
                ? 'Measuring the round trip…'
                : 'Measuring the download speed…'
              : state.kind === 'done'
                ? 'Done: your results are below.'
                : ''}
        </p>
        {state.kind === 'failed' && (
          <p className="notice error" role="alert">
            {state.message}
          </p>
        )}
      </section>

      {state.kind === 'done' && region && (
        <Results result={state.result} region={region} headingRef={results} />
      )}

      <p className="check-next">
        <Link href="/select-vm" className="button">
          See the plans
        </Link>
      </p>
    </div>
  );
}

function Progress({ progress }: { progress: CheckProgress }) {
  const label =
    progress.phase === 'rtt'
      ? `Measuring the round trip: ${progress.done} of ${progress.total}`
      : `Measuring the download speed: ${formatMegabytes(progress.bytes)} of ${formatMegabytes(progress.payloadBytes)}`;
  // The round trips are the first half of the bar, the payloads (at most `steps`) the second.
  const value =
    progress.phase === 'rtt'
      ? (progress.done / progress.total) * 50
      : 50 + ((progress.step + progress.bytes / progress.payloadBytes) / progress.steps) * 50;
  return (
    <>
      <progress max={100} value={Math.round(value)} aria-label="Connection check progress" />
      <p className="check-progress-label">{label}</p>
    </>
  );
}

function formatMegabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${mb < 1 ? mb.toFixed(2) : mb.toFixed(1)} MB`;
}

function Results({
  result,
  region,
  headingRef,
}: {
  result: CheckResult;
  region: string;
  headingRef: RefObject<HTMLHeadingElement | null>;
}) {
  const measured: Measured = { rttMs: result.rtt.medianMs, jitterMs: result.rtt.jitterMs, mbps: result.mbps };
  const advice = adviceFor(measured, region);
  const quality = streamQualityFor(result.mbps);
  return (
    <>
      <section className="check-results" aria-labelledby="check-results-title">
        <h2 id="check-results-title" ref={headingRef} tabIndex={-1}>
          Your connection to {regionLabel(region)}
        </h2>
        <dl className="check-figures">
          <div className="card check-figure">
            <dt>Round trip</dt>
            <dd data-figure="rtt" data-value={result.rtt.medianMs}>
              {formatMs(result.rtt.medianMs)}
            </dd>
          </div>
          <div className="card check-figure">
            <dt>Jitter</dt>
            <dd data-figure="jitter" data-value={result.rtt.jitterMs}>
              {formatMs(result.rtt.jitterMs)}
            </dd>
          </div>
          <div className="card check-figure">
            <dt>Download speed</dt>
            <dd data-figure="speed" data-value={result.mbps ?? ''}>
              {formatMbps(result.mbps)}
            </dd>
          </div>
        </dl>
        {quality && (
          <p className={`notice ${quality.mode ? 'info' : 'warning'} check-quality`} data-figure="quality">
            {quality.text}
          </p>
        )}
        <p className="muted check-method">
          Round trip: the median of {result.rtt.samples} requests to {regionLabel(region)}, after one that
          sets up the connection.
          {result.rtt.lost > 0 && ` ${result.rtt.lost} more got no answer in time.`} Jitter: how much one
          round trip differs from the next, on average.
          {result.speedProblem === 'unsized' && ` ${M.speedNotMeasured}`}
          {result.speedProblem === 'failed' &&
            ' The download speed could not be measured this time, so the verdicts rest on the round trip and jitter.'}
        </p>
        <ul className="check-verdicts">
          {verdicts(measured).map((verdict) => (
            <li
              key={verdict.use}
              className={`card check-verdict check-${verdict.level}`}
              data-use={verdict.use}
              data-level={verdict.level}
            >
              <p className="check-use">
                {USE_LABELS[verdict.use]}
                <span className="chip check-level">{LEVEL_LABELS[verdict.level]}</span>
              </p>
              <h3>{verdict.title}</h3>
              <p>{verdict.text}</p>
              <p className="muted check-needs">{greatNeeds(verdict.use)}</p>
            </li>
          ))}
        </ul>
      </section>
      {advice.length > 0 && (
        <section className="card check-advice" aria-labelledby="check-advice-title">
          <h2 id="check-advice-title">How to get a better result</h2>
          <ul>
            {advice.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
