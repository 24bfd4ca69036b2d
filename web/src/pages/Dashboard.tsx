import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { logOut } from '../api/auth.ts';
import { ACCOUNT_MESSAGES } from '../../../core/domain/account.ts';
import { ApiError } from '../api/fetcher.ts';
import type { SessionUser } from '../api/session.ts';
import { refreshDashboard, startVm, stopVm, useDashboard, type DashboardRecord } from '../api/vm.ts';
import { Dialog } from '../components/Dialog.tsx';
import { IdleNotice, IdleSettingCard } from '../components/IdleAutoStop.tsx';
import { RequireUser } from '../components/RequireUser.tsx';
import { PaymentNotices } from '../components/PaymentNotices.tsx';
import { NoPlanCard } from '../components/NoPlanCard.tsx';
import { UsageClock } from '../components/UsageClock.tsx';
import { HourBankNotice } from '../components/HourBankNotice.tsx';
import { PlanEndBanner } from '../components/PlanEndBanner.tsx';
import { SetupProgress } from '../components/SetupProgress.tsx';
import { AutoPayPanel } from '../components/AutoPayPanel.tsx';
import { BrowserDesktop } from '../components/BrowserDesktop.tsx';
import { ConnectGuides } from '../components/ConnectGuides.tsx';
import { MachineHealthLine } from '../components/MachineHealthLine.tsx';
import { HostName } from '../components/HostName.tsx';
import { ConnectionCheckLink } from '../components/ConnectionCheckLink.tsx';
import { desktopReachable } from '../../../core/domain/machineStates.ts';
import { handoverStatus } from '../../../core/domain/planHandover.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import { formatRupees, rupeesToPaise } from '../../../core/domain/money.ts';
import { formatLongDate } from '../../../core/domain/time.ts';
import { isTrialPlanName, TRIAL_LABEL } from '../../../core/domain/trial.ts';
import { VM_MESSAGES, VM_STATUS_LABELS, type VmDisplayState } from '../../../core/domain/vm.ts';
import { NAME_MESSAGES } from '../../../core/domain/machineName.ts';

/**
 * Spec §2 Dashboard: the cloud PC and its plan, the connection files, START (only when
 * stopped) and STOP (architecture deviation 5). Reads the record the payment-success page
 * handed over in the navigation state, then loads it and refreshes every 5 s.
 */
export default function Dashboard() {
  usePageTitle('Dashboard');
  return <RequireUser>{(user) => <DashboardView user={user} />}</RequireUser>;
}

/** The record /payment-success navigated here with, when it is this user's. */
function navigationRecord(email: string): DashboardRecord | undefined {
  const state: unknown = typeof window === 'undefined' ? null : window.history.state;
  if (state && typeof state === 'object' && (state as { email?: unknown }).email === email) {
    return state as DashboardRecord;
  }
  return undefined;
}

function DashboardView({ user }: { user: SessionUser }) {
  const [, navigate] = useLocation();
  const [fallback] = useState(() => navigationRecord(user.email));
  const { data, error } = useDashboard(user.email, fallback);
  // Spec §8: a failed dashboard fetch is only logged here; the last record (or the loading line) stays.
  if (error) console.warn('dashboard fetch failed', error);

  const [logoutFailed, setLogoutFailed] = useState(false);
  async function logout() {
    setLogoutFailed(false);
    try {
      await logOut({ everything: true });
      navigate('/');
    } catch {
      setLogoutFailed(true);
    }
  }

  return (
    <div className="container page dashboard">
      <div className="dashboard-head">
        <div>
          <h1>Dashboard</h1>
          <p className="lead">Welcome, {data?.name ?? user.name}!</p>
        </div>
        <div className="button-row dashboard-nav">
          <Link href="/" className="button">
            Home
          </Link>
          {data?.selectedPlan && (
            <Link href="/progress" className="button">
              Usage
            </Link>
          )}
          <Link href="/history" className="button">
            Invoices
          </Link>
          <button type="button" className="button" onClick={logout}>
            Logout
          </button>
        </div>
      </div>
      {logoutFailed && (
        <p className="notice error dashboard-notice" role="alert">
          {ACCOUNT_MESSAGES.logoutFailed}
        </p>
      )}
      <PaymentNotices />
      {!data ? (
        <p className="loading" role="status">
          {VM_MESSAGES.loading}
        </p>
      ) : !data.selectedPlan ? (
        <NoPlanCard />
      ) : (
        <DashboardBody record={data} />
      )}
      <ConnectionCheckLink on="dashboard" />
    </div>
  );
}

function DashboardBody({ record }: { record: DashboardRecord }) {
  const state = record.vmLastState;
  return (
    <>
      {record.notice && (
        <div className={`notice ${state === 'error' ? 'error' : 'warning'} dashboard-notice`} role="status">
          <p>{record.notice}</p>
          {!record.planActive && record.keptUntil && (
            <p>
              Your PC and its files are kept until {formatLongDate(record.keptUntil)}.{' '}
              <Link href="/select-vm">Renew Plan</Link>
            </p>
          )}
        </div>
      )}
      <PlanEndBanner record={record} />
      <HourBankNotice record={record} />
      {record.keptDisk && <KeptDiskNotice disk={record.keptDisk} />}
      <IdleNotice enabled={record.vmLastState !== 'none'} />
      <div className="dashboard-grid">
        <MachineCard record={record} state={state} />
        <PlanCard record={record} />
        <DownloadsCard record={record} state={state} />
        <ConnectGuides record={record} />
        <IdleSettingCard enabled={record.vmLastState !== 'none'} />
        <AutoPayPanel record={record} />
      </div>
    </>
  );
}

/** The copy of an expired machine's disk: when it was saved, until when a purchase brings it back. */
function KeptDiskNotice({ disk }: { disk: NonNullable<DashboardRecord['keptDisk']> }) {
  return (
    <div className="notice info dashboard-notice kept-disk" role="status">
      {disk.saving || !disk.savedOn ? (
        <p>{VM_MESSAGES.diskSaving}</p>
      ) : (
        <>
          <p>
            {disk.deleting ? `${VM_MESSAGES.diskSavedDeleting} We` : 'Your PC was deleted, but we'} saved a
            copy of its disk on <strong>{formatLongDate(disk.savedOn)}</strong>. It is kept until{' '}
            <strong>{formatLongDate(disk.keptUntil)}</strong>: buy any plan before then and your new PC starts
            with all your files, games and projects.
          </p>
          <p>
            The copy will be deleted on {formatLongDate(disk.keptUntil)}.{' '}
            <Link href="/select-vm">Renew Plan</Link>
          </p>
        </>
      )}
    </div>
  );
}

const TRANSITIONS: ReadonlySet<VmDisplayState> = new Set(['provisioning', 'starting', 'stopping']);

const TRANSITION_HINTS: Partial<Record<VmDisplayState, string>> = {
  provisioning: VM_MESSAGES.provisioningHint,
  starting: VM_MESSAGES.startingHint,
  stopping: VM_MESSAGES.stoppingHint,
};

function MachineCard({ record, state }: { record: DashboardRecord; state: VmDisplayState }) {
  const [busy, setBusy] = useState<'start' | 'stop' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [confirmingStop, setConfirmingStop] = useState(false);

  async function act(kind: 'start' | 'stop') {
    setConfirmingStop(false);
    setBusy(kind);
    setProblem(null);
    try {
      await (kind === 'start' ? startVm(record.email) : stopVm(record.email));
    } catch (error) {
      // A refusal (hours used up, plan expired, busy) or an ended session says why; anything
      // else is the spec's line.
      const fallback = kind === 'start' ? VM_MESSAGES.startFailed : VM_MESSAGES.stopFailed;
      setProblem(
        error instanceof ApiError && (error.status === 409 || error.status === 401) && error.message
          ? error.message
          : fallback,
      );
    } finally {
      setBusy(null);
      // Spec §2: after START the dashboard reloads.
      void refreshDashboard();
    }
  }

  const ip =
    record.vmPublicIp ??
    (state === 'stopped' || state === 'stopping'
      ? VM_MESSAGES.ipWhenStopped
      : state === 'error' || state === 'terminated'
        ? '—'
        : VM_MESSAGES.fetching);
  const hint = TRANSITION_HINTS[state];

  return (
    <section className="card vm-card" aria-labelledby="vm-card-title">
      <h2 id="vm-card-title">Your cloud PC</h2>
      <p className={`vm-status vm-status-${state}`} role="status" aria-live="polite">
        <span className="vm-status-dot" aria-hidden="true" />
        <span>
          <span className="visually-hidden">Status: </span>
          <span data-field="status">
            {record.handover
              ? handoverStatus(record.handover)
              : record.waitingForDiskCopy
                ? VM_MESSAGES.waitingForDiskCopy
                : VM_STATUS_LABELS[state]}
          </span>
        </span>
        {TRANSITIONS.has(state) && <span className="spinner spinner-small" aria-hidden="true" />}
      </p>
      <dl className="vm-facts">
        {record.machineName && (
          <div className="vm-fact">
            <dt>PC name</dt>
            <dd className="vm-name" data-field="pc-name">
              <HostName host={record.machineName.host} />
            </dd>
          </div>
        )}
        <div className="vm-fact">
          <dt>Public IP</dt>
          <dd className={record.vmPublicIp ? 'vm-ip' : undefined} data-field="public-ip">
            {ip}
          </dd>
        </div>
        <UsageClock
          vmUsageSeconds={record.vmUsageSeconds}
          isRunning={record.isRunning}
          vmLastStateChange={record.vmLastStateChange}
          selectedDuration={record.selectedDuration}
          planEnd={record.planEnd}
        />
      </dl>
      {record.machineName?.current === false && (
        <p className="notice warning vm-name-note" role="status" data-field="name-updating">
          {NAME_MESSAGES.updating}
        </p>
      )}
      <MachineHealthLine
        health={record.machineHealth}
        name={record.machineName}
        namesEnabled={record.namesEnabled}
        publicIp={record.vmPublicIp}
      />
      {record.setup && <SetupProgress setup={record.setup} />}
      {hint && <p className="muted vm-hint vm-transition-hint">{hint}</p>}
      {state === 'stopped' && (
        <div className="vm-actions">
          <button
            type="button"
            className="button primary"
            onClick={() => act('start')}
            disabled={busy !== null || record.startBlocked !== null}
            aria-describedby={record.startBlocked ? 'start-blocked' : undefined}
          >
            {busy === 'start' ? 'Starting…' : 'START VM'}
          </button>
          {record.startBlocked ? (
            <p className="vm-hint start-blocked" id="start-blocked">
              {record.startBlocked}
            </p>
          ) : (
            <p className="muted vm-hint">{VM_MESSAGES.stoppedHint}</p>
          )}
        </div>
      )}
      {state === 'running' && (
        <div className="vm-actions">
          <button
            type="button"
            className="button danger"
            onClick={() => setConfirmingStop(true)}
            disabled={busy !== null}
          >
            {busy === 'stop' ? 'Stopping…' : 'STOP VM'}
          </button>
          <p className="muted vm-hint">{VM_MESSAGES.runningHint}</p>
        </div>
      )}
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
      <Dialog open={confirmingStop} title="Stop your cloud PC?" onClose={() => setConfirmingStop(false)}>
        <p>{VM_MESSAGES.stopConfirm}</p>
        <div className="modal-actions">
          <button type="button" className="button" onClick={() => setConfirmingStop(false)}>
            Keep it running
          </button>
          <button type="button" className="button danger" onClick={() => act('stop')}>
            Stop VM
          </button>
        </div>
      </Dialog>
    </section>
  );
}

function PlanCard({ record }: { record: DashboardRecord }) {
  const facts: Array<[string, string]> = [
    ['Registered name', record.name],
    [
      'Plan',
      isTrialPlanName(record.selectedPlan)
        ? `${TRIAL_LABEL} trial${record.trialMachine ? ` on ${record.trialMachine}` : ''}`
        : record.selectedPlan,
    ],
  ];
  if (record.selectedDuration !== null) {
    // A trial is 1 hour.
    facts.push(['Duration', `${record.selectedDuration} hour${record.selectedDuration === 1 ? '' : 's'}`]);
  }
  if (record.selectedStorage) facts.push(['Storage', record.selectedStorage]);
  // A trial is priced for its hour, not per month.
  if (record.selectedPrice !== null)
    facts.push(
      isTrialPlanName(record.selectedPlan)
        ? ['Trial price', `${formatRupees(rupeesToPaise(record.selectedPrice))} for ${TRIAL_LABEL}`]
        : ['Price per month', formatRupees(rupeesToPaise(record.selectedPrice))],
    );
  if (record.purchaseDate) facts.push(['Purchase date', formatLongDate(record.purchaseDate)]);
  if (record.expiryDate) facts.push(['Expiry date', formatLongDate(record.expiryDate)]);
  return (
    <section className="card plan-summary" aria-labelledby="plan-summary-title">
      <h2 id="plan-summary-title">Your plan</h2>
      <dl className="vm-facts">
        {facts.map(([label, value]) => (
          <div className="vm-fact" key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function DownloadsCard({ record, state }: { record: DashboardRecord; state: VmDisplayState }) {
  // "Generating…" while the machine is on its way; a stopped one has no address to write.
  // A deleted or failed machine has nothing to download (and nothing is being generated).
  const gone = state === 'terminated' || state === 'error';
  const rdpPending = gone
    ? VM_MESSAGES.notAvailable
    : TRANSITIONS.has(state) && state !== 'stopping'
      ? VM_MESSAGES.generating
      : VM_MESSAGES.rdpWhenRunning;
  return (
    <section className="card downloads" aria-labelledby="downloads-title">
      <h2 id="downloads-title">Connect</h2>
      <ul className="download-list">
        <li>
          <span className="download-name">Desktop in your browser</span>
          <BrowserDesktop available={desktopReachable({ state, publicIp: record.vmPublicIp })} />
        </li>
        <li>
          <span className="download-name">Remote desktop file</span>
          {record.rdpUrl ? (
            <a className="button primary small" href={record.rdpUrl} download>
              Download desktop file
            </a>
          ) : (
            <span className="download-pending">{rdpPending}</span>
          )}
          <p className="muted download-hint">
            {record.machineName ? NAME_MESSAGES.rdpHintNamed : VM_MESSAGES.rdpHint}
          </p>
        </li>
        <li>
          <span className="download-name">Password file</span>
          {record.pwdUrl ? (
            <a className="button small" href={record.pwdUrl} download>
              Download password file
            </a>
          ) : (
            <span className="download-pending">
              {gone ? VM_MESSAGES.notAvailable : VM_MESSAGES.generating}
            </span>
          )}
          <p className="muted download-hint">
            Open the desktop file, then paste this password when Windows asks.
          </p>
        </li>
        <li>
          <span className="download-name">Remote streaming client</span>
          <a
            className="button small"
            href={record.streamingClientUrl}
            target="_blank"
            rel="noopener noreferrer"
          >
            Get the installer
          </a>
          <p className="muted download-hint">For smooth gaming and video: low latency, high frame rates.</p>
        </li>
        <li>
          <span className="download-name">Setup video</span>
          {record.setupVideoUrl ? (
            <a className="button small" href={record.setupVideoUrl} target="_blank" rel="noopener noreferrer">
              Watch the video
            </a>
          ) : (
            <a className="button small" href="#connect">
              {VM_MESSAGES.setupGuides}
            </a>
          )}
        </li>
      </ul>
    </section>
  );
}
