import { useEffect, useRef } from 'react';
import './streaming.css';
import type { MachineHealthView } from '../../../core/domain/machineHealth.ts';
import {
  HEALTH_FIELDS,
  TROUBLESHOOTING,
  troubleshootingHref,
  type HealthField,
} from '../../../core/domain/guides.ts';
import type { MachineNameView } from '../../../core/domain/machineName.ts';
import { formatClockTime } from './streamingFormat.ts';

/** A line of the facts: its words, and the health field it is (linked to what to check when it fails). */
type Fact = { label: string; value: string; field?: HealthField };

/** The address line: the name and whether it leads to the PC now, or the IP that changes. */
function addressFact(
  name: MachineNameView | null,
  namesEnabled: boolean,
  publicIp: string | null,
): Fact | null {
  if (name) {
    const value =
      name.current === false
        ? `${name.host}: being updated, use ${publicIp ?? 'the IP shown'} meanwhile`
        : `${name.host}${name.current ? ': points to your PC' : ''}`;
    return { label: HEALTH_FIELDS.address.label, value, field: 'address' };
  }
  if (!publicIp) return null;
  return {
    label: HEALTH_FIELDS.address.label,
    value: namesEnabled ? publicIp : `${publicIp}: changes every time your PC starts`,
    field: 'address',
  };
}

/**
 * The machine card's health line: what the PC is ready for ("Ready for 1440p 120 fps streaming"),
 * or what is wrong, what the customer can do and a link to the troubleshooting guide's section,
 * from the machine's own last report; the facts behind it (sound, controllers, the streaming
 * display among them) fold away, each linked to what to check in the guides when it is the one
 * failing. Arriving at `/dashboard#<field>` (from a guide) opens them at that line.
 */
export function MachineHealthLine({
  health,
  name = null,
  namesEnabled = false,
  publicIp = null,
}: {
  health: MachineHealthView | null;
  name?: MachineNameView | null;
  namesEnabled?: boolean;
  publicIp?: string | null;
}) {
  const details = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const id = window.location.hash.slice(1);
    if (!id || !Object.values(HEALTH_FIELDS).some((f) => f.id === id) || !details.current) return;
    details.current.open = true;
    document.getElementById(id)?.scrollIntoView({ block: 'center' });
  }, [health !== null]);
  if (!health || health.status === 'off') return null;
  const reported = health.checkedAt !== null;
  const facts: Fact[] = [];
  if (health.gpu) facts.push({ label: 'Graphics', value: health.gpu });
  if (health.driverLicensed !== null)
    facts.push({
      label: HEALTH_FIELDS.driver.label,
      value: health.driverLicensed ? 'Licensed' : 'Not licensed',
      field: 'driver',
    });
  if (health.display || reported)
    facts.push({
      label: HEALTH_FIELDS.display.label,
      value: health.display
        ? `${health.display.width} × ${health.display.height}${health.display.refreshHz ? ` at ${health.display.refreshHz} Hz` : ''}`
        : 'No display',
      field: 'display',
    });
  if (health.streamingDisplay !== null)
    facts.push({
      label: 'Streaming display',
      value: health.streamingDisplay ? 'Virtual display' : 'Not the streaming display',
    });
  if (health.sound !== null)
    facts.push({
      label: HEALTH_FIELDS.audio.label,
      value: health.sound === false ? 'No sound device' : health.sound,
      field: 'audio',
    });
  if (health.controllers !== null)
    facts.push({
      label: HEALTH_FIELDS.gamepad.label,
      value: health.controllers ? 'Ready (as Xbox controllers)' : 'Not available',
      field: 'gamepad',
    });
  if (health.streamHostRunning !== null)
    facts.push({
      label: HEALTH_FIELDS.streamHost.label,
      value: health.streamHostRunning ? 'Running' : 'Not running',
      field: 'streamHost',
    });
  const address = addressFact(name, namesEnabled, publicIp);
  if (address) facts.push(address);
  if (health.freeDiskGb !== null) facts.push({ label: 'Free disk', value: `${health.freeDiskGb} GB` });
  return (
    <div
      className={`health-line health-${health.status}`}
      role="status"
      aria-live="polite"
      data-field="health"
    >
      <p className="health-headline">
        <span className="health-dot" aria-hidden="true" />
        <span>{health.headline}</span>
      </p>
      {health.advice && (
        <p className="health-advice">
          {health.advice}
          {health.helpUrl && (
            <>
              {' '}
              <a className="health-help" href={health.helpUrl}>
                What to do, step by step
              </a>
            </>
          )}
        </p>
      )}
      {facts.length > 0 && (
        <details className="health-facts" ref={details}>
          <summary>
            What your PC reported{health.checkedAt ? `, at ${formatClockTime(health.checkedAt)}` : ''}
          </summary>
          <dl>
            {facts.map((fact) => (
              <div key={fact.label} id={fact.field ? HEALTH_FIELDS[fact.field].id : undefined}>
                <dt>{fact.label}</dt>
                <dd>
                  <span data-health-value={fact.field}>{fact.value}</span>
                  {fact.field && <FailureLink field={fact.field} />}
                </dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </div>
  );
}

/** "Black screen? What to check": the guide for the failure this field explains. */
function FailureLink({ field }: { field: HealthField }) {
  const failure = HEALTH_FIELDS[field].failure;
  const entry = TROUBLESHOOTING.find((t) => t.key === failure);
  if (!entry) return null;
  return (
    <a className="health-guide" href={troubleshootingHref(failure)} data-failure={entry.anchor}>
      {entry.title}? What to check
    </a>
  );
}
