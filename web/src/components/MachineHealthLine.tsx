import './streaming.css';
import type { MachineHealthView } from '../../../core/domain/machineHealth.ts';
import { formatClockTime } from './streamingFormat.ts';

/**
 * The machine card's health line: what the PC is ready for ("Ready for 1440p 120 fps streaming"),
 * or what is wrong, what the customer can do and a link to the troubleshooting guide's section,
 * from the machine's own last report; the facts behind it (sound, controllers, the streaming
 * display among them) fold away.
 */
export function MachineHealthLine({ health }: { health: MachineHealthView | null }) {
  if (!health || health.status === 'off') return null;
  const facts: Array<[string, string]> = [];
  if (health.gpu) facts.push(['Graphics', health.gpu]);
  if (health.driverLicensed !== null)
    facts.push(['Gaming driver', health.driverLicensed ? 'Licensed' : 'Not licensed']);
  if (health.display)
    facts.push([
      'Display',
      `${health.display.width} × ${health.display.height}${health.display.refreshHz ? ` at ${health.display.refreshHz} Hz` : ''}`,
    ]);
  if (health.streamingDisplay !== null)
    facts.push([
      'Streaming display',
      health.streamingDisplay ? 'Virtual display' : 'Not the streaming display',
    ]);
  if (health.sound !== null) facts.push(['Sound', health.sound === false ? 'No sound device' : health.sound]);
  if (health.controllers !== null)
    facts.push(['Controllers', health.controllers ? 'Ready (as Xbox controllers)' : 'Not available']);
  if (health.freeDiskGb !== null) facts.push(['Free disk', `${health.freeDiskGb} GB`]);
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
        <details className="health-facts">
          <summary>
            What your PC reported{health.checkedAt ? `, at ${formatClockTime(health.checkedAt)}` : ''}
          </summary>
          <dl>
            {facts.map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </div>
  );
}
