import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../api/fetcher.ts';
import { pairDevice, removeDevice } from '../api/streaming.ts';
import { refreshDashboard, type DashboardRecord } from '../api/vm.ts';
import { desktopReachable } from '../../../core/domain/machineStates.ts';
import {
  DCV_CLIENT_URL,
  deviceNameProblem,
  MOONLIGHT_PIN_WINDOW_SECONDS,
  normaliseDeviceName,
  pairingInFlight,
  PIN_PATTERN,
  STREAMING_MESSAGES,
  type PairingState,
  type StreamingView,
} from '../../../core/domain/streaming.ts';
import { formatLongDate } from '../../../core/domain/time.ts';
import { VM_MESSAGES } from '../../../core/domain/vm.ts';
import { GAMING } from '../../../core/domain/gaming.ts';
import { GUIDES_PATH, MOONLIGHT_DOWNLOADS } from '../../../core/domain/guides.ts';
import { MoonlightDownloads, PortsTable, Troubleshooting } from './GuideSections.tsx';
import { BrowserDesktop } from './BrowserDesktop.tsx';
import { HostName } from './HostName.tsx';
import { Dialog } from './Dialog.tsx';
import { Tabs } from './Tabs.tsx';
import { TextField } from './TextField.tsx';
import './streaming.css';

/**
 * One place to choose how to connect: Moonlight (games), Amazon DCV's app, the browser, Remote
 * Desktop. Each option has what it needs now (pairing a device, the .dcv file, the buttons) and a
 * short guide with pictures of these very screens.
 */
export function ConnectGuides({ record }: { record: DashboardRecord }) {
  const streaming = record.streaming;
  const running = desktopReachable({ state: record.vmLastState, publicIp: record.vmPublicIp });
  const tabs = [
    {
      id: 'moonlight',
      label: 'Moonlight (games)',
      // A new run of the PC (or a stop) starts the panel afresh: no answer from before it stays.
      content: <MoonlightPanel key={record.vmLastStateChange ?? ''} streaming={streaming} />,
    },
    { id: 'dcv', label: 'DCV app', content: <DcvPanel streaming={streaming} /> },
    { id: 'browser', label: 'Browser', content: <BrowserPanel running={running} /> },
    { id: 'rdp', label: 'Remote Desktop', content: <RdpPanel record={record} /> },
    { id: 'help', label: 'When something fails', content: <HelpPanel /> },
  ];
  return (
    <section className="card connect-guides" id="connect" aria-labelledby="connect-title">
      <h2 id="connect-title">How to connect</h2>
      <p className="muted connect-intro">
        Four ways onto your PC. For games choose Moonlight: up to {GAMING.maxResolution} and {GAMING.maxFps}{' '}
        fps with a gamepad, from a phone, TV or computer.
      </p>
      <Tabs tabs={tabs} label="How to connect" />
    </section>
  );
}

type Step = { text: ReactNode; image?: { src: string; alt: string } };

/** A short illustrated guide: numbered steps, each with a picture of our own screen where it helps. */
function Guide({ title, steps }: { title: string; steps: Step[] }) {
  return (
    <details className="guide">
      <summary>{title}</summary>
      <ol className="guide-steps">
        {steps.map((step, i) => (
          <li key={i}>
            <p>{step.text}</p>
            {step.image && (
              <img
                src={step.image.src}
                alt={step.image.alt}
                loading="lazy"
                decoding="async"
                className="guide-image"
              />
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}

function MoonlightPanel({ streaming }: { streaming: StreamingView | null }) {
  return (
    <div className="connect-panel">
      <p className="connect-lead">
        Moonlight streams your PC’s screen to the device you play on, at your display’s resolution and frame
        rate, with sound and gamepads. Your PC runs Sunshine, the host Moonlight talks to.
      </p>
      <div className="connect-block">
        <h3>1. Get Moonlight</h3>
        <ul className="client-links" aria-label="Moonlight downloads">
          {MOONLIGHT_DOWNLOADS.map((client) => (
            <li key={client.os}>
              <a href={client.url} target="_blank" rel="noopener noreferrer" className="client-chip">
                {client.os}
              </a>
            </li>
          ))}
        </ul>
        <details className="guide-files">
          <summary>Which file to get</summary>
          <MoonlightDownloads headingLevel={3} />
        </details>
      </div>
      <div className="connect-block">
        <h3>2. Add your PC in Moonlight</h3>
        {streaming?.host ? (
          <HostAddress host={streaming.host} named={streaming.named} />
        ) : (
          <p className="download-pending">
            {VM_MESSAGES.rdpWhenRunning}: its address changes every time it starts.
          </p>
        )}
        {streaming && (
          <p className="muted host-note" data-field="address-note">
            {streaming.addressNote}
          </p>
        )}
      </div>
      <div className="connect-block">
        <h3>3. Type the PIN Moonlight shows</h3>
        {streaming ? (
          <PairingForm streaming={streaming} />
        ) : (
          <p className="download-pending">{VM_MESSAGES.notAvailable}</p>
        )}
      </div>
      {streaming && <PairedDevices devices={streaming.pairedDevices} note={streaming.pairedNote} />}
      <Guide
        title="Step by step, with pictures"
        steps={[
          {
            text: 'Install Moonlight on the phone, tablet, TV or computer you will play on (links above).',
            image: { src: '/guides/moonlight-1.png', alt: 'The Moonlight download links on the dashboard' },
          },
          {
            text: (
              <>
                In Moonlight choose <strong>Add host</strong> (the + button) and type your PC’s address, shown
                here while it runs. Moonlight then shows a 4-digit PIN.
              </>
            ),
            image: { src: '/guides/moonlight-2.png', alt: 'Your PC’s address with its Copy button' },
          },
          {
            text: `Type that PIN and a name for the device here, within ${MOONLIGHT_PIN_WINDOW_SECONDS / 60} minutes, and press Pair device. Keep Moonlight open until it says it is paired.`,
            image: {
              src: '/guides/moonlight-3.png',
              alt: 'The pairing form with a PIN and a device name typed',
            },
          },
          {
            text: 'Your device is listed as paired. In Moonlight open your PC, then Desktop or a game. Remove a device here to stop it streaming.',
            image: { src: '/guides/moonlight-4.png', alt: 'A paired device listed with its Remove button' },
          },
        ]}
      />
    </div>
  );
}

function HostAddress({ host, named }: { host: string; named: boolean }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(host);
      setCopied('yes');
    } catch (error) {
      // Clipboard refused (permissions, an old browser): the address stays selectable to copy by hand.
      console.warn('copying the address failed', error);
      setCopied('no');
    }
  }
  return (
    <div className="host-address">
      <span className="muted">
        In Moonlight: Add host (+), then type {named ? 'your PC’s name' : 'its address'}
      </span>
      <code data-field="stream-host">
        <HostName host={host} />
      </code>
      <button type="button" className="button small" onClick={copy}>
        {copied === 'yes' ? 'Copied' : 'Copy'}
      </button>
      {copied === 'no' && <span className="muted">Select the address and copy it.</span>}
    </div>
  );
}

const STAGES: Partial<Record<PairingState, string>> = {
  pending: 'Sending your PIN to your PC…',
  sending: 'Your PC is handing the PIN to Moonlight…',
  confirming: 'Waiting for Moonlight to confirm the pairing…',
};

type Outcome = { kind: 'success' | 'error' | 'info'; text: string; deviceId?: string };

function PairingForm({ streaming }: { streaming: StreamingView }) {
  const [pin, setPin] = useState('');
  const [name, setName] = useState('');
  const [problems, setProblems] = useState<{ pin?: string; name?: string }>({});
  const [busySince, setBusySince] = useState<number | null>(null);
  const [following, setFollowing] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [, tick] = useState(0);
  const pairing = streaming.pairing;
  const waiting = busySince !== null || following !== null;

  // While the server waits on the PC, follow the steps it records (and tick the seconds).
  useEffect(() => {
    if (!waiting) return;
    const timer = window.setInterval(() => {
      tick((n) => n + 1);
      void refreshDashboard();
    }, 1500);
    return () => window.clearInterval(timer);
  }, [waiting]);

  // A device's "is paired" answer lasts while it is paired: once listed, then removed (here or
  // on the PC), it goes. (The list may not have it yet when the answer arrives.)
  const listed = useRef<string | null>(null);
  useEffect(() => {
    const id = outcome?.deviceId;
    if (!id) return;
    if (streaming.pairedDevices.some((d) => d.id === id)) listed.current = id;
    else if (listed.current === id) setOutcome(null);
  }, [outcome, streaming.pairedDevices]);

  // A pairing the server stopped waiting for (202): its answer arrives in the record.
  useEffect(() => {
    if (!following || !pairing || pairing.id !== following || pairingInFlight(pairing.state)) return;
    setFollowing(null);
    setBusySince(null);
    setOutcome({
      kind: pairing.state === 'paired' ? 'success' : 'error',
      text: pairing.message ?? '',
      ...(pairing.state === 'paired' ? { deviceId: pairing.id } : {}),
    });
  }, [following, pairing]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const deviceName = normaliseDeviceName(name);
    const found = {
      pin: PIN_PATTERN.test(pin) ? undefined : STREAMING_MESSAGES.pinFormat,
      name: deviceNameProblem(deviceName) ?? undefined,
    };
    setProblems(found);
    setOutcome(null);
    if (found.pin || found.name || !deviceName) return;
    setBusySince(Date.now());
    try {
      const answer = await pairDevice(pin, deviceName);
      if (answer.pairing) {
        setFollowing(answer.pairing.id);
        setOutcome({ kind: 'info', text: answer.message });
        return;
      }
      setOutcome({
        kind: 'success',
        text: answer.message,
        ...(answer.device ? { deviceId: answer.device.id } : {}),
      });
      setPin('');
      setName('');
      setBusySince(null);
    } catch (error) {
      setBusySince(null);
      setOutcome({
        kind: 'error',
        text:
          error instanceof ApiError && error.message && error.status >= 400 && error.status < 500
            ? error.message
            : 'Could not send the PIN to your PC. Please try again.',
      });
    }
  }

  const stage = (pairing && pairingInFlight(pairing.state) && STAGES[pairing.state]) || STAGES.pending;
  const seconds = busySince === null ? 0 : Math.floor((Date.now() - busySince) / 1000);
  return (
    <form className="pair-form" onSubmit={submit} noValidate aria-busy={waiting}>
      {!streaming.canPair && streaming.pairBlockedBecause && (
        <p className="notice warning" role="status">
          {streaming.pairBlockedBecause}
        </p>
      )}
      <div className="pair-fields">
        <TextField
          label="PIN from Moonlight"
          name="pin"
          value={pin}
          onChange={(value) => setPin(value.replace(/\D/g, '').slice(0, 4))}
          inputMode="numeric"
          autoComplete="off"
          maxLength={4}
          placeholder="0000"
          error={problems.pin ?? null}
          disabled={waiting || !streaming.canPair}
        />
        <TextField
          label="Device name"
          name="deviceName"
          value={name}
          onChange={setName}
          autoComplete="off"
          maxLength={40}
          placeholder="Living room TV"
          error={problems.name ?? null}
          disabled={waiting || !streaming.canPair}
        />
      </div>
      <button type="submit" className="button primary" disabled={waiting || !streaming.canPair}>
        {waiting ? 'Pairing…' : 'Pair device'}
      </button>
      {waiting && (
        <p className="pair-progress" role="status" aria-live="polite">
          <span className="spinner spinner-small" aria-hidden="true" />
          <span>
            {stage} <span className="muted">({seconds} s) Keep Moonlight open on your device.</span>
          </span>
        </p>
      )}
      {outcome && (
        <p className={`notice ${outcome.kind}`} role={outcome.kind === 'error' ? 'alert' : 'status'}>
          {outcome.text}
        </p>
      )}
    </form>
  );
}

function PairedDevices({ devices, note }: { devices: StreamingView['pairedDevices']; note: string | null }) {
  const [confirming, setConfirming] = useState<{ id: string; name: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  async function remove(device: { id: string; name: string }) {
    setConfirming(null);
    setBusy(device.id);
    setOutcome(null);
    try {
      const answer = await removeDevice(device.id);
      setOutcome({ kind: answer.device?.state === 'removed' ? 'success' : 'info', text: answer.message });
    } catch (error) {
      setOutcome({
        kind: 'error',
        text:
          error instanceof ApiError && error.message && error.status < 500
            ? error.message
            : 'Could not remove the device. Please try again.',
      });
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="connect-block paired-devices">
      <h3>Paired devices</h3>
      {note && (
        <p className="muted host-note" data-field="paired-note">
          {note}
        </p>
      )}
      {devices.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ul className="device-list">
          {devices.map((device) => (
            <li key={device.id} data-device={device.name}>
              <span className="device-name">
                {device.name}
                {device.foundOnPc && (
                  <span className="muted device-origin">{STREAMING_MESSAGES.foundOnPc}</span>
                )}
              </span>
              <span className="muted">
                {device.removing
                  ? 'Removing…'
                  : device.pairedAt
                    ? `Paired ${formatLongDate(device.pairedAt)}`
                    : 'Paired'}
              </span>
              <button
                type="button"
                className="button small"
                disabled={device.removing || busy !== null}
                onClick={() => setConfirming({ id: device.id, name: device.name })}
              >
                {busy === device.id ? 'Removing…' : 'Remove'}
              </button>
              {device.problem && <p className="notice warning">{device.problem}</p>}
            </li>
          ))}
        </ul>
      )}
      {outcome && (
        <p className={`notice ${outcome.kind}`} role={outcome.kind === 'error' ? 'alert' : 'status'}>
          {outcome.text}
        </p>
      )}
      <Dialog
        open={confirming !== null}
        title={`Remove ${confirming?.name ?? 'this device'}?`}
        onClose={() => setConfirming(null)}
      >
        <p>It will no longer be able to stream from your PC. You can pair it again any time.</p>
        <div className="modal-actions">
          <button type="button" className="button" onClick={() => setConfirming(null)}>
            Keep it
          </button>
          <button type="button" className="button danger" onClick={() => confirming && remove(confirming)}>
            Remove device
          </button>
        </div>
      </Dialog>
    </div>
  );
}

function DcvPanel({ streaming }: { streaming: StreamingView | null }) {
  return (
    <div className="connect-panel">
      <p className="connect-lead">
        Amazon DCV’s app for Windows, macOS and Linux: your desktop in its own window, smooth over QUIC, with
        sound and several screens. No password to type: the file signs you in.
      </p>
      <div className="connect-block connect-row">
        <a className="button small" href={DCV_CLIENT_URL} target="_blank" rel="noopener noreferrer">
          Get the DCV client
        </a>
        {streaming?.dcvFileUrl ? (
          <a className="button primary small" href={streaming.dcvFileUrl} download data-field="dcv-file">
            Download DCV file
          </a>
        ) : (
          <span className="download-pending">{VM_MESSAGES.rdpWhenRunning}</span>
        )}
      </div>
      <p className="muted download-hint">
        The file works once, within a minute of downloading: open it right away, and download a new one each
        time you connect.
      </p>
      <Guide
        title="Step by step, with pictures"
        steps={[
          {
            text: 'Install the DCV client for your computer from Amazon’s page (Get the DCV client).',
            image: { src: '/guides/dcv-1.png', alt: 'The DCV client and DCV file buttons' },
          },
          {
            text: 'With your PC running, press Download DCV file.',
            image: { src: '/guides/dcv-2.png', alt: 'Your PC running and ready' },
          },
          {
            text: 'Open the downloaded file (double-click it, or open it from the browser’s downloads) within a minute. The DCV client connects straight to your desktop.',
          },
        ]}
      />
    </div>
  );
}

function BrowserPanel({ running }: { running: boolean }) {
  return (
    <div className="connect-panel">
      <p className="connect-lead">
        Your desktop in a browser tab: nothing to install, good for work and quick checks.
      </p>
      <div className="connect-block connect-row">
        <BrowserDesktop available={running} />
      </div>
      <Guide
        title="Step by step, with pictures"
        steps={[
          {
            text: 'Start your PC and wait until it says Running.',
            image: {
              src: '/guides/browser-1.png',
              alt: 'Your PC’s card saying Running and ready for streaming',
            },
          },
          {
            text: 'Press Open in browser. A new tab opens your desktop; the link works once, for a minute.',
            image: { src: '/guides/browser-2.png', alt: 'The Open in browser button' },
          },
          {
            text: 'If your browser blocks the new tab, allow pop-ups for this site or use the link shown under the button.',
          },
        ]}
      />
    </div>
  );
}

function RdpPanel({ record }: { record: DashboardRecord }) {
  return (
    <div className="connect-panel">
      <p className="connect-lead">
        Windows’ Remote Desktop, built into Windows and available for Mac, iPhone and Android: fine for work,
        not for fast games.
      </p>
      <div className="connect-block connect-row">
        {record.rdpUrl ? (
          <a className="button primary small" href={record.rdpUrl} download>
            Download desktop file
          </a>
        ) : (
          <span className="download-pending">{VM_MESSAGES.rdpWhenRunning}</span>
        )}
        {record.pwdUrl && (
          <a className="button small" href={record.pwdUrl} download>
            Download password file
          </a>
        )}
      </div>
      <Guide
        title="Step by step, with pictures"
        steps={[
          {
            text: 'With your PC running, download the desktop file and the password file.',
            image: { src: '/guides/rdp-1.png', alt: 'The desktop file and password file buttons' },
          },
          {
            text: 'Open the desktop file. When Windows asks, paste the password from the password file (user Administrator).',
          },
          {
            text: 'Your PC gets a new address each time it starts: download the desktop file again after each start.',
          },
        ]}
      />
    </div>
  );
}

/** What to check when something fails, and the ports: the guides' own sections. */
function HelpPanel() {
  return (
    <div className="connect-panel">
      <p className="connect-lead">
        Check these in order. The health line on your PC’s card links each of its lines here too. The full
        guides, with every device, are on <a href={GUIDES_PATH}>the guides page</a>.
      </p>
      <Troubleshooting headingLevel={3} />
      <PortsTable headingLevel={3} />
    </div>
  );
}
